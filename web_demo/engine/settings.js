// Where pages load Pyodide from: the one setting.
//   "site": the copy under exports/browser/pyodide/ that scripts/export_pyodide.py fetched
//           (works offline; the site must be built after that script ran);
//   "cdn":  Pyodide's public CDN at PYODIDE_CDN (same version as the local copy; the page then
//           needs the internet, and exports/browser/ only has to carry manifest.json and our
//           engine wheel).
export const PYODIDE_FROM = "site";
export const PYODIDE_CDN = "https://cdn.jsdelivr.net/pyodide/v0.27.7/full/";
