#!/usr/bin/env node
import { runCli } from '../dist/cli/main.js';

const stopSignal = new Promise((resolve) => {
  process.once('SIGINT', resolve);
  process.once('SIGTERM', resolve);
});
process.exitCode = await runCli(process.argv.slice(2), {
  out: (text) => process.stdout.write(text),
  err: (text) => process.stderr.write(text),
  env: process.env,
  cwd: process.cwd(),
  stdin: process.stdin,
  stopSignal,
  // Log lines go to stderr: in a terminal they are written for people.
  terminal: process.stderr.isTTY === true,
});
process.exit();
