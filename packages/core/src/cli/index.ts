// The `@threatlib/core/cli` entry: what a command-line program built on threatlib uses (the `threatlib` command of
// `@threatlib/server` does): reading `threatlib.config.js` (`loadConfig`; an application can call
// `ThreatClient.fromConfigFile` instead), the `threatlib-config` command, the variable that holds each feed's key, and
// the bounded stream of scouts behind `client.scoutMany`. Node.js only: it reads files.
export { apiKeyVariable } from '../config/environment.js';
export { CONFIG_FILE_NAMES, type LoadConfigOptions, loadConfig } from '../config/load-config.js';
export { streamScouts } from '../scout/scout-many.js';
export { runConfigCommand } from './config-command.js';
