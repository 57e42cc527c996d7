export {
  type BundleVerdict,
  describeWithOasisValidators,
  type PatternVerdict,
  runOasisValidators,
} from './oasis-validators.js';
export { describeWithTools, runTool, type ToolRun, toolScript } from './python-tool.js';
