import type { PlatformDefinition } from '../platform.js';
import { QRADAR_API_PORT, QRADAR_OPTIONS } from './qradar-options.js';
import { QradarPlatform } from './qradar-platform.js';

/** IBM QRadar SIEM (REST API, reference data, Ariel, offenses; events by syslog): platform `siem_b`. */
export const qradar: PlatformDefinition<typeof QRADAR_OPTIONS> = {
  id: 'siem_b',
  vendor: 'QRadar',
  status: 'production',
  defaultPort: QRADAR_API_PORT,
  optionsShape: QRADAR_OPTIONS,
  caseOptions: ['offenseId'],
  create: (settings) => new QradarPlatform(settings),
};
