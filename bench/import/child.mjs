// One fresh process of the import bench: imports the module named in argv[2] once and reports, over IPC, how long the
// import took and the CPU time it used. With `count`, it counts instead the modules loaded (by a resolve/load hook,
// which slows the import, so the timed runs go without it) and groups them by package.
import { registerHooks } from 'node:module';

const [, , specifier, mode] = process.argv;

if (mode === 'count') {
  const urls = new Set();
  registerHooks({
    load(url, context, nextLoad) {
      urls.add(url);
      return nextLoad(url, context);
    },
  });
  await import(specifier);
  const byPackage = {};
  for (const url of urls) {
    if (url.startsWith('node:')) continue;
    // The last node_modules segment names the package; a workspace package is reached through its link.
    const path = decodeURIComponent(new URL(url).pathname);
    const match = /.*node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(path) ?? /\/packages\/([^/]+)\//.exec(path);
    const name = match ? match[1] : 'other';
    byPackage[name] = (byPackage[name] ?? 0) + 1;
  }
  process.send({ modules: [...urls].filter((url) => !url.startsWith('node:')).length, byPackage });
} else {
  const cpu = process.cpuUsage();
  const started = performance.now();
  await import(specifier);
  const ms = performance.now() - started;
  const used = process.cpuUsage(cpu);
  process.send({ ms, cpuMs: (used.user + used.system) / 1000 });
}
process.disconnect();
