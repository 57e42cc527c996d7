#!/usr/bin/env node
import { runConfigCommand } from '../dist/cli/config-command.js';

const code = await runConfigCommand(process.argv.slice(2), {
  out: (text) => process.stdout.write(text),
  err: (text) => process.stderr.write(text),
  env: process.env,
  cwd: process.cwd(),
});
process.exitCode = code;
