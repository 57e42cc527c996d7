export { INDICATOR_TYPES, type Indicator, type IndicatorType, isIndicatorType } from './indicator.js';
export { INDICATOR_TYPE_NAMES, type IndicatorTypeName, isIndicatorTypeName } from './indicator-type-name.js';
export { parseIndicator } from './parse-indicator.js';
