import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { RequestMetrics } from './request-metrics.js';

describe('RequestMetrics', () => {
  it('exposes a counter by method, route and status and a cumulative histogram by method and route', async () => {
    const registry = new Registry();
    const metrics = new RequestMetrics(registry);
    metrics.observe('POST', '/api/v1/threats/scan', 200, 0.0004);
    metrics.observe('POST', '/api/v1/threats/scan', 200, 0.003);
    metrics.observe('POST', '/api/v1/threats/scan', 400, 0.2);
    metrics.observe('GET', '/health', 200, 12);
    const text = await registry.metrics();

    expect(text).toContain('# TYPE threatlib_http_requests_total counter');
    expect(text).toContain('threatlib_http_requests_total{method="POST",route="/api/v1/threats/scan",status="200"} 2');
    expect(text).toContain('threatlib_http_requests_total{method="POST",route="/api/v1/threats/scan",status="400"} 1');
    expect(text).toContain('# TYPE threatlib_http_request_duration_seconds histogram');
    const bucket = (le: string) =>
      new RegExp(
        `threatlib_http_request_duration_seconds_bucket\\{le="${le.replace('+', '\\+')}",method="POST",route="/api/v1/threats/scan"\\} (\\d+)`,
      ).exec(text)?.[1];
    expect(bucket('0.001')).toBe('1');
    expect(bucket('0.0025')).toBe('1');
    expect(bucket('0.005')).toBe('2');
    expect(bucket('0.1')).toBe('2');
    expect(bucket('0.25')).toBe('3');
    expect(bucket('+Inf')).toBe('3');
    expect(text).toMatch(
      /threatlib_http_request_duration_seconds_sum\{method="POST",route="\/api\/v1\/threats\/scan"\} 0\.2034/,
    );
    expect(text).toContain(
      'threatlib_http_request_duration_seconds_count{method="POST",route="/api/v1/threats/scan"} 3',
    );
    // Above the largest bound: only in +Inf.
    expect(text).toContain('threatlib_http_request_duration_seconds_bucket{le="10",method="GET",route="/health"} 0');
    expect(text).toContain('threatlib_http_request_duration_seconds_bucket{le="+Inf",method="GET",route="/health"} 1');

    registry.resetMetrics();
    expect(await registry.metrics()).not.toContain('threatlib_http_requests_total{');
  });
});
