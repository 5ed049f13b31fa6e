/**
 * The /api contract is checked at compile time (tsc runs over this file): requests are the zod
 * schemas' input types, each handler must answer exactly its call's data. Each `@ts-expect-error`
 * below fails the type check if the mistake it marks ever compiles.
 */
import { expect, expectTypeOf, it } from 'vitest';
import type { ApiData, ApiInput, ApiRequest } from '#core/contracts/api.ts';
import { apiInputs } from '#core/contracts/api-inputs.ts';
import { exactHandlers, type ApiHandlers } from './api.ts';

const vip = {
  vipRoomTime: 0,
  vipRoomRemainingNumber: 0,
  vipBigRoomPeopleNumber: 0,
  vipBigRoomTime: 0,
  recordRoomTime: 0,
  creditWindowUntil: 0,
};

it('types each handler by its call: a wrong answer shape does not compile', () => {
  const right: ApiHandlers['getUserVipInfo'] = () => Promise.resolve({ vipUserInfo: vip });
  // @ts-expect-error a wrong answer shape
  const wrong: ApiHandlers['getUserVipInfo'] = async () => ({ vipUserInfo: 1 });
  // @ts-expect-error another call's answer
  const other: ApiHandlers['logout'] = async () => ({ vipUserInfo: vip });
  expect([right, wrong, other].every((f) => typeof f === 'function')).toBe(true);
});

it('refuses, through exactHandlers, an answer with a field its call does not declare, at any depth', () => {
  type Rest = Omit<ApiHandlers, 'getUserVipInfo' | 'createObserverLink'>;
  const rest = {} as Rest;
  const fine = exactHandlers({
    ...rest,
    getUserVipInfo: async () => ({ vipUserInfo: vip }),
    createObserverLink: async () => ({ url: '', expiresAt: 0 }),
  });
  const nested = exactHandlers({
    ...rest,
    // @ts-expect-error a field nested in the answer that the contract does not declare
    getUserVipInfo: async () => ({ vipUserInfo: { ...vip, password: 'x' } }),
    createObserverLink: async () => ({ url: '', expiresAt: 0 }),
  });
  const top = exactHandlers({
    ...rest,
    getUserVipInfo: async () => ({ vipUserInfo: vip }),
    // @ts-expect-error a top-level field the contract does not declare
    createObserverLink: async () => ({ url: '', expiresAt: 0, ot: 'secret' }),
  });
  expect([fine, nested, top].length).toBe(3);
});

it('infers requests and handler inputs from the schemas', () => {
  expectTypeOf<ApiRequest<'createRoom'>['roomType']>().toEqualTypeOf<2 | 3 | 4 | '2' | '3' | '4'>();
  // A form field of digits is accepted on the wire and arrives as a number.
  expectTypeOf<ApiRequest<'getMyRoomList'>['pageSize']>().toEqualTypeOf<number | string | undefined>();
  expectTypeOf<ApiInput<'getMyRoomList'>['pageSize']>().toEqualTypeOf<number | undefined>();
  expectTypeOf<ApiData<'createObserverLink'>>().toEqualTypeOf<{ url: string; expiresAt: number }>();
  // @ts-expect-error a room type that does not exist
  const bad: ApiRequest<'createRoom'> = { roomType: 5 };
  expect(apiInputs.createRoom.safeParse(bad).success).toBe(false);
  expect(apiInputs.createRoom.safeParse({ roomType: '2' }).success).toBe(true);
});
