import { PUBLIC_EVENT_TYPES } from './event-types';

/**
 * The limits of the API's inputs, which the gateway's validation (dto/) and the services that check
 * the same inputs again both use: here, without class-validator, so that a service's start does not
 * load the gateway's validation to read a number (dto/ re-exports each where it was).
 */

export const LEAD_LIMITS = {
  firstName: 120,
  lastName: 120,
  fullName: 240,
  title: 200,
  tags: 20,
  tagLength: 100,
} as const;

export const PAGE_LIMIT = { min: 1, max: 100, default: 25 } as const;

export const ENROLLMENT_BATCH = { min: 1, max: 500 } as const;

export const TASK_LIMITS = { title: 300, id: 255 } as const;

export const NOTE_LIMITS = { body: 10_000 } as const;

/**
 * `endpoints`: webhook endpoints a workspace has at most (the spec leaves the number open), so one
 * event fans out to a bounded number of URLs.
 */
export const WEBHOOK_LIMITS = { description: 200, url: 2048, events: PUBLIC_EVENT_TYPES.length + 1, endpoints: 16 } as const;

export const WEBHOOK_EVENT_CHOICES = [...PUBLIC_EVENT_TYPES, '*'] as const;
