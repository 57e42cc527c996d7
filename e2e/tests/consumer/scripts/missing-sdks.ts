// Runs in a consumer project that lacks the SDKs of some platforms: constructs a connector for each of MISSING
// (JSON: a list of SIEMConnector options) and prints, as one JSON line, the error each construction threw.
import { SIEMConnector, type SiemConnectorOptions } from '@threatlib/siem';

const platforms = JSON.parse(process.env.MISSING ?? '[]') as SiemConnectorOptions[];
const errors: Record<string, { name: string; message: string } | 'constructed'> = {};
for (const options of platforms) {
  try {
    await new SIEMConnector(options).stop();
    errors[options.platform] = 'constructed';
  } catch (error) {
    errors[options.platform] = { name: (error as Error).name, message: (error as Error).message };
  }
}
console.log(JSON.stringify(errors));
