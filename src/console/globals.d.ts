declare module '*.css';
/** The strategy API reference, markdown cut from docs/playground.md by the server's console build (src/http/console/strategy-reference.ts). */
declare const PLAYGROUND_REFERENCE_MD: string;
