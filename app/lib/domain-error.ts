import { isDomainError } from '#core/platform/errors.ts';

/** The code of a domain error thrown by a service, or null. */
export function domainCode(error: unknown): string | null {
  return isDomainError(error) ? error.code : null;
}
