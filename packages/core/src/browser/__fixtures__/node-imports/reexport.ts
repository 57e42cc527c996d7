export { join as joined } from 'node:path';
