/**
 * The platform identifiers `SIEMConnector` takes: `siem_a` Splunk, `siem_b` IBM QRadar, `siem_c` Elastic Security,
 * `siem_d` Microsoft Sentinel (production), `siem_e` Google Security Operations / Chronicle (beta).
 */
export const PLATFORM_IDS = ['siem_a', 'siem_b', 'siem_c', 'siem_d', 'siem_e'] as const;

/** One of {@link PLATFORM_IDS}. */
export type PlatformId = (typeof PLATFORM_IDS)[number];
