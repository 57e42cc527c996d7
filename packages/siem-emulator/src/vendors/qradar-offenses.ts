// The offense endpoints: read an offense and add a note to it.
import type { EmulatorRequest, EmulatorResponse } from '../vendor.js';
import { notFound, qradarError } from './qradar-api.js';
import type { OffenseNote, QradarState } from './qradar-state.js';

/** `/api/siem/...`: `segments` are the path segments after `siem`. */
export function handleOffenses(state: QradarState, request: EmulatorRequest, segments: string[]): EmulatorResponse {
  if (segments[0] !== 'offenses' || segments.length < 2 || segments.length > 3) return notFound();
  const idText = segments[1] as string;
  if (!/^\d+$/.test(idText)) {
    return qradarError(
      422,
      1005,
      `offense_id ${JSON.stringify(idText)} is not a number`,
      'A request parameter is not valid',
    );
  }
  const offense = state.offenses.get(Number(idText));
  if (segments.length === 2) {
    if (request.method !== 'GET') return qradarError(405, 0, 'Method not allowed');
    if (!offense) return qradarError(404, 1002, `Offense ${idText} does not exist`, 'The offense does not exist.');
    return { status: 200, body: { id: offense.id, status: 'OPEN', description: `Offense ${offense.id}` } };
  }
  if (segments[2] !== 'notes') return notFound();
  if (request.method !== 'POST') return qradarError(405, 0, 'Method not allowed');
  if (!offense)
    return qradarError(
      404,
      1002,
      `Offense ${idText} does not exist`,
      'No offense was found for the provided offense_id.',
    );
  const text = request.query.get('note_text');
  if (!text) {
    return qradarError(
      422,
      1005,
      'Missing required parameter "note_text" from query parameters',
      'A request parameter is not valid',
    );
  }
  const note: OffenseNote = { id: state.nextId(), create_time: Date.now(), username: 'threatlib', note_text: text };
  offense.notes.push(note);
  return { status: 201, body: note };
}
