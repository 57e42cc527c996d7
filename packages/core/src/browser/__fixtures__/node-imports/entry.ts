// A module reaching Node built-ins in each way a bundler follows: a `node:` import, a bare built-in with a subpath, a
// re-export from another file and a literal dynamic import.
import { EventEmitter } from 'events';
import { readFile } from 'node:fs/promises';

export { joined } from './reexport.js';
export const load = () => import('./dynamic.js');
export const events = new EventEmitter();
export const read = readFile;
