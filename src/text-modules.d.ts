// Python sources imported as text (Bun's `with { type: 'text' }`): the runner's harness and the
// playground templates.
declare module '*.py' {
  const text: string;
  export default text;
}
