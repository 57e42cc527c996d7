// A module reaching Node built-ins in each way a bundler follows: a `node:` import, a bare built-in with a subpath, a
// re-export from another file, a literal dynamic import of a file, and of a built-in itself (the last two loaded only
// when called).
import { EventEmitter } from 'events';
import { readFile } from 'node:fs/promises';

export { joined } from './reexport.js';
export const load = () => import('./dynamic.js');
export const tmp = async () => (await import('node:os')).tmpdir();
export const events = new EventEmitter();
export const read = readFile;
