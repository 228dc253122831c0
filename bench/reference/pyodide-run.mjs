// Runs bench/reference/sma_cross_cpython.py in Pyodide under Deno, outside the sandbox and without the
// playground's harness: CPython compiled to WebAssembly on exactly the loop the native reference runs.
// deno run --allow-read <this> <pyodideDir> <checkout root> <bars file> <tick> <fast> <slow> <size>
const [pyodideDir, root, bars, ...rest] = Deno.args;
const { loadPyodide } = await import(`file://${pyodideDir}/pyodide.mjs`);
const py = await loadPyodide({ indexURL: `${pyodideDir}/` });
const files = {
  '/ref/sma_cross_cpython.py': `${root}/bench/reference/sma_cross_cpython.py`,
  '/ref/runner/python/indicators.py': `${root}/runner/python/indicators.py`,
  '/ref/src/service/playground/templates/sma_cross.py': `${root}/src/service/playground/templates/sma_cross.py`,
};
for (const [to, from] of Object.entries(files)) {
  py.FS.mkdirTree(to.slice(0, to.lastIndexOf('/')));
  py.FS.writeFile(to, Deno.readFileSync(from));
}
py.FS.writeFile('/ref/bars.f64', Deno.readFileSync(bars));
py.globals.set('ARGV', ['sma_cross_cpython.py', '/ref', '/ref/bars.f64', ...rest]);
py.runPython(`import sys; sys.argv = list(ARGV); exec(compile(open('/ref/sma_cross_cpython.py').read(), 'sma_cross_cpython.py', 'exec'), {'__name__': '__main__'})`);
