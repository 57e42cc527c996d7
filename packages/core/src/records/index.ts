export { type Case, type CaseInput, CaseSchema, PRIORITIES, type Priority } from './case.js';
export { type EnrichedIndicator, EnrichedIndicatorSchema } from './enriched-indicator.js';
export { flaggedBy } from './flagged-by.js';
export {
  type IndicatorInput,
  type IndicatorRecord,
  IndicatorRecordSchema,
  type IndicatorRef,
  IndicatorRefSchema,
  IndicatorSchema,
} from './indicator-record.js';
export { parseRecord, recordIssues } from './parse-record.js';
export {
  type IndicatorMessage,
  IndicatorMessageSchema,
  type ProcessedMessage,
  ProcessedMessageSchema,
} from './queue-messages.js';
export {
  riskScoreForConfidence,
  SEVERITIES,
  type Severity,
  SeveritySchema,
  severityForRiskScore,
  severityRank,
  THREAT_LEVELS,
  type ThreatLevel,
  ThreatLevelSchema,
  threatLevelForRiskScore,
} from './severity.js';
export { type StreamEvent, type StreamEventInput, StreamEventSchema, streamEventFor } from './stream-event.js';
