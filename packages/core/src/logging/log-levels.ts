/** pino's numeric level of each level name. */
export const LEVEL_VALUES = { trace: 10, debug: 20, info: 30, warn: 40, error: 50, fatal: 60 } as const;

/** A level name pino knows. */
export type LevelName = keyof typeof LEVEL_VALUES;

/** The name of a numeric pino level (`30` → `info`); numbers between levels take the level below. */
export function levelName(value: number): LevelName {
  if (value >= 60) return 'fatal';
  if (value >= 50) return 'error';
  if (value >= 40) return 'warn';
  if (value >= 30) return 'info';
  if (value >= 20) return 'debug';
  return 'trace';
}
