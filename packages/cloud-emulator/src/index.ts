export type { CloudRequest, CloudResponse, CloudService } from './cloud-service.js';
export {
  type EmulatorServer,
  type EmulatorServerOptions,
  type RecordedRequest,
  startEmulatorServer,
} from './emulator-server.js';
