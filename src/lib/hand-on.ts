// A facade's calls handed on to the parts that do the work, written as data: the names a part
// answers, each bound to the part and set on the facade. The facade declares the same names as a
// `Pick` of the part's type (an interface merged with its class), so each signature is written once,
// where the work is done.

/** Sets on `facade` the methods `names` of `part`, bound to it. */
export function handOn<P extends object, K extends keyof P>(facade: object, part: P, names: readonly K[]): void {
  for (const name of names) {
    const method = part[name];
    if (typeof method !== 'function') throw new Error(`handOn: ${String(name)} is not a method`);
    Object.defineProperty(facade, name, { value: method.bind(part), writable: true, configurable: true });
  }
}
