// Source maps: files a build writes beside its bundles, JSON that maps each generated position
// back to the sources. A map's `sourcesContent` holds every source the bundle was built from, in
// JSON strings on one line, so its chunks repeat the workspace's code with its escapes; its
// `mappings` is base64 noise. axios commits its builds: asked how its request interceptors run, or
// how to cancel a request with an AbortController, `axios.min.js.map` and `axios.cjs.map` took two
// of ten results each, and an agent reading one gets a kilobyte of escaped JavaScript. Nothing in a
// map is for a person to search: the sources and the bundle, when a workspace holds them, are
// indexed on their own.

/** The JSON object's first key, after the `)]}'` line a map may start with to defeat script inclusion (ECMA-426 §3). */
const MAP_START = /^\s*(?:\)\]\}'[^\n]*\n\s*)?\{\s*"(?:version|file|sourceRoot|sources|sourcesContent|names|mappings|sections|x_\w+)"\s*:/;

/** Whether a file is a source map: named `*.map` and starting as one does, with `mappings` or `sections` in it. */
export function isSourceMap(relPath: string, text: string): boolean {
  return relPath.endsWith('.map') && MAP_START.test(text.slice(0, 256)) && /"(?:mappings|sections)"\s*:/.test(text);
}
