// The amqplib pieces the RabbitMQ back end builds on: confirmed sends, acks, delivery headers as text, the
// connection URL's heartbeat, and a promise resolved from outside (the "connected" signal).
import { setOwn } from '@threatlib/core/integration';
import type { ConfirmChannel, ConsumeMessage, Options } from 'amqplib';
import { headerText } from '../message/headers.js';

/** A promise and the function that resolves it. */
export interface Deferred {
  promise: Promise<void>;
  resolve: () => void;
}

/** A new {@link Deferred}. */
export function deferred(): Deferred {
  let resolve: () => void = () => undefined;
  const promise = new Promise<void>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

/** Sends on a confirm channel and resolves when the broker confirmed (rejects when it nacked or the channel died). */
export function confirmedSend(channel: ConfirmChannel, queue: string, body: Buffer, options: Options.Publish) {
  return new Promise<void>((resolve, reject) => {
    try {
      channel.sendToQueue(queue, body, options, (error: unknown) => (error ? reject(asError(error)) : resolve()));
    } catch (error) {
      reject(asError(error));
    }
  });
}

/** Acknowledges on the channel that delivered; false when that channel is gone (the broker will redeliver). */
export function ack(channel: ConfirmChannel, delivery: ConsumeMessage): boolean {
  try {
    channel.ack(delivery);
    return true;
  } catch {
    return false;
  }
}

/** The headers of a delivery that are text, as strings (the broker's tables and arrays left out). */
export function textHeaders(headers: Record<string, unknown> | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers ?? {})) {
    // Tables and arrays (the broker's x-death history) are not text; a handler has no use for them.
    if (value === null || value === undefined || (typeof value === 'object' && !Buffer.isBuffer(value))) continue;
    setOwn(out, name, headerText(value) ?? '');
  }
  return out;
}

/** The broker's dead-letter history grows with every pass through a retry queue; what we keep is our own count. */
export function withoutDeathHistory(headers: Record<string, unknown>): Record<string, unknown> {
  const {
    'x-death': _death,
    'x-first-death-exchange': _exchange,
    'x-first-death-queue': _queue,
    'x-first-death-reason': _reason,
    'x-last-death-exchange': _lastExchange,
    'x-last-death-queue': _lastQueue,
    'x-last-death-reason': _lastReason,
    ...rest
  } = headers;
  return rest;
}

/** The URL with `heartbeat` set, unless the URL sets it itself. */
export function withHeartbeat(connection: string, seconds: number): string {
  if (/[?&]heartbeat=/.test(connection)) return connection;
  return `${connection}${connection.includes('?') ? '&' : '?'}heartbeat=${seconds}`;
}

function asError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}

/** The message of a thrown value. */
export function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
