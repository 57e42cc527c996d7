// Lets a child process run this package's TypeScript source directly (Node strips the types): the sources import
// each other as `./x.js`, as NodeNext requires, and this maps such an import to `./x.ts` when no `.js` exists.
import { registerHooks } from 'node:module';

registerHooks({
  resolve(specifier, context, nextResolve) {
    try {
      return nextResolve(specifier, context);
    } catch (error) {
      if (error?.code === 'ERR_MODULE_NOT_FOUND' && specifier.startsWith('.') && specifier.endsWith('.js')) {
        return nextResolve(`${specifier.slice(0, -3)}.ts`, context);
      }
      throw error;
    }
  },
});
