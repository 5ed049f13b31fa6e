/**
 * The number box anyone can use, with or without an account (ADR 098): the landing page, the
 * sign-in page, the visitor's `/` and the refusal page. The rule of docs/product/01-account-and-lobby.md
 * §5 (letters and digits kept, at most 10, at least 6), then the rate-limited room look-up
 * (`getRoomInfoByRoomNumber`, ADR 066): a wrong number is said here, beside the box, and the box
 * stays; a room that exists opens at its own address, where the guard sends a visitor to the name
 * step and a signed-in person to the room's pre-join.
 */
import { useId, useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router';
import { invitePath } from '#core/contracts/api.ts';
import { Button } from '#app/components/Button.tsx';
import { useLang } from '#app/components/lang.tsx';
import { api, isOk, NETWORK_ERROR } from '#app/lib/api.ts';
import { useRequestLock } from '#app/lib/lock.ts';
import { codeMessage } from '#app/lib/messages.ts';
import { cleanRoomNumber, isValidRoomNumber } from '#app/lib/names.ts';
import './join-by-number.css';

export interface JoinByNumberProps {
  /** Prefix of the test ids (`{name}-room`, `{name}-join`, `{name}-error`): one box per page. */
  name: string;
  /** Focus the box when the page opens (a page whose first task is this box). */
  autoFocus?: boolean;
}

export function JoinByNumber({ name, autoFocus = false }: JoinByNumberProps) {
  const { t } = useTranslation();
  const { lang } = useLang();
  const navigate = useNavigate();
  const { busy, run } = useRequestLock();
  const [value, setValue] = useState('');
  const [error, setError] = useState<string | null>(null);
  const inputId = useId();
  const errorId = `${inputId}-error`;

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const roomNumber = value;
    if (!isValidRoomNumber(roomNumber)) {
      setError(t('journeys.join.invalid'));
      return;
    }
    void run(async () => {
      const info = await api('getRoomInfoByRoomNumber', { roomNumber });
      if (!isOk(info)) {
        // A network failure has its toast already (api); the box keeps the number for a retry.
        if (info.code !== NETWORK_ERROR) setError(codeMessage(info.code, lang) ?? info.msg);
        return;
      }
      await navigate(invitePath(info.data.roomInfo.roomType, info.data.roomInfo.roomNumber));
    });
  };

  return (
    <form className="join-number" onSubmit={submit} noValidate data-testid={`${name}-form`}>
      <label htmlFor={inputId}>{t('journeys.join.label')}</label>
      <div className="join-number__row">
        <input
          id={inputId}
          name="roomNumber"
          inputMode="numeric"
          autoComplete="off"
          enterKeyHint="go"
          placeholder={t('journeys.join.placeholder')}
          value={value}
          aria-invalid={error !== null}
          aria-describedby={error ? errorId : undefined}
          autoFocus={autoFocus}
          data-testid={`${name}-room`}
          onChange={(e) => {
            // No maxLength: a pasted '123-456-789' must lose its dashes before the 10 are counted.
            setValue(cleanRoomNumber(e.target.value));
            setError(null);
          }}
        />
        <Button type="submit" loading={busy} data-testid={`${name}-join`}>
          {t('journeys.join.submit')}
        </Button>
      </div>
      {error ? (
        <p id={errorId} className="field__error" role="alert" data-testid={`${name}-error`}>
          {error}
        </p>
      ) : null}
    </form>
  );
}
