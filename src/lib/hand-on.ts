// A facade's calls handed on to the parts that do the work, written as data: the names a part
// answers become methods of the facade's class that call the same method of that part. The class
// declares the same names as a `Pick` of the part's type (an interface merged with the class), so
// each signature is written once, where the work is done. The methods are the prototype's, as
// hand-written ones would be (a bench may wrap them there).

/** Defines on `cls`'s prototype the methods `names`, each handing its call on to the part `partOf` returns. */
export function handOn<C extends object, P extends object>(
  cls: { prototype: C },
  partOf: (facade: C) => P,
  names: readonly (keyof P & string)[],
): void {
  for (const name of names) {
    const method = function (this: C, ...args: unknown[]): unknown {
      const part = partOf(this);
      return (part[name] as (...a: unknown[]) => unknown).apply(part, args);
    };
    Object.defineProperty(method, 'name', { value: name });
    Object.defineProperty(cls.prototype, name, { value: method, writable: true, configurable: true });
  }
}
