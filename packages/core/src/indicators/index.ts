export { INDICATOR_TYPES, type Indicator, type IndicatorType, isIndicatorType } from './indicator.js';
export { parseIndicator } from './parse-indicator.js';
export { refang } from './refang.js';
