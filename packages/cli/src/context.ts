import { ApiError, LeadIntelClient } from '@lead-intelligence/client';

/** What every command is given: the typed client for the key, and where its output goes. */
export interface Lim {
  client: LeadIntelClient;
  apiBase: string;
  /** The key's mode, from its prefix (`svc_test_` keys see test events). */
  livemode: boolean;
  /** One JSON line on stdout (listen and trigger: a line per event). */
  line(value: object): void;
  /** A JSON document on stdout (list and get). */
  json(value: unknown): void;
  /** A remark for the person at the terminal, on stderr. */
  note(text: string): void;
}

/** The typed call's data, or the API's error thrown as ApiError. */
export function dataOf<T>(result: { data?: T; error?: unknown; response: Response }): T {
  if (result.data === undefined) {
    throw ApiError.from(result.response.status, result.error as ConstructorParameters<typeof ApiError>[1], result.response.headers.get('Request-Id'));
  }
  return result.data;
}

export const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve) => {
    if (signal?.aborted) return resolve();
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => {
      clearTimeout(timer);
      resolve();
    }, { once: true });
  });
