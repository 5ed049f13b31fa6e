import { z } from 'zod';

/** docs/product/decisions.md: 11 digits, mainland mobile prefixes, area code 86. */
export const MOBILE_RULE = /^1[3-9]\d{9}$/;
export const CODE_RULE = /^\d{6}$/;
/** One rule for every name: 1-10 Chinese or Latin letters, digits and single spaces, trimmed. */
const NAME_RULE = /^[\p{Script=Han}A-Za-z0-9]+(?: [\p{Script=Han}A-Za-z0-9]+)*$/u;
export const NAME_MAX = 10;

export function normaliseName(raw: unknown): string | null {
  if (typeof raw !== 'string') return null;
  const name = raw.normalize('NFC').trim();
  const length = [...name].length;
  if (length < 1 || length > NAME_MAX || !NAME_RULE.test(name)) return null;
  return name;
}

const str = (max: number) => z.string().max(max);

export const sendPhoneCodeInput = z.object({
  mobile: str(32),
  area: str(8).optional(),
  purpose: z.literal('login').optional(),
});

export const loginInput = z.object({
  mobile: str(32),
  code: str(32),
  userType: z.union([z.literal('1'), z.literal(1)]).optional(),
});

/** Calls without fields: whatever envelope fields a client adds to the body are ignored. */
export const noInput = z.object({}).loose();
/** queryUserInfoByToken: the token may come in the body too (docs/product/01-account-and-lobby.md §7). */
export const tokenInput = z.object({ token: z.string().max(128).optional() }).loose();

export const userIdInput = z.object({ id: z.string().regex(/^\d{1,18}$/) });
export const getUserInfoInput = z.object({
  userId: z
    .string()
    .regex(/^\d{1,18}$/)
    .optional(),
});
export const updateUserNameInput = z.object({ userName: str(64) });
