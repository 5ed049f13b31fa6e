import { useEffect, useId, useRef, useState, type KeyboardEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { CHAT_MAX_CHARS, type ChatMessage } from '#core/contracts/room-events.ts';
import { Button } from '#app/components/Button.tsx';
import { chatText } from './useRoomChannel.ts';

export interface ChatPanelProps {
  messages: ChatMessage[];
  myId: string;
  /** Observers read only. */
  readOnly: boolean;
  /** While the channel is down nothing can be sent (the draft stays). */
  disabled: boolean;
  onSend: (text: string) => Promise<boolean>;
}

/**
 * Tab 1: the chat. Lines are 'name: text', rendered as text (never HTML) with line breaks kept.
 * Enter sends, Shift+Enter breaks the line; at most 30 characters, trimmed, empty not sent.
 */
export function ChatPanel({ messages, myId, readOnly, disabled, onSend }: ChatPanelProps) {
  const { t } = useTranslation();
  const inputId = useId();
  const [draft, setDraft] = useState('');
  const [sending, setSending] = useState(false);
  const list = useRef<HTMLOListElement>(null);

  useEffect(() => {
    const el = list.current;
    if (el) el.scrollTop = el.scrollHeight;
  }, [messages.length]);

  const send = async () => {
    const text = chatText(draft);
    if (text === null || sending || disabled) return;
    setSending(true);
    const ok = await onSend(text);
    setSending(false);
    if (ok) setDraft('');
  };

  const onKeyDown = (event: KeyboardEvent<HTMLTextAreaElement>) => {
    if (event.key === 'Enter' && !event.shiftKey && !event.nativeEvent.isComposing) {
      event.preventDefault();
      void send();
    }
  };

  return (
    <div className="chat">
      <ol className="chat__list" ref={list} aria-label={t('classroom.chat.list')} aria-live="polite" data-testid="chat-list">
        {messages.length === 0 ? <li className="chat__empty muted">{t('classroom.chat.empty')}</li> : null}
        {messages.map((m) => (
          <li key={m.id} className={`chat__line${m.uid === myId ? ' chat__line--mine' : ''}`} data-testid="chat-line">
            <span className="chat__name">{m.name}</span>
            <span aria-hidden="true">: </span>
            <span className="chat__text">{m.text}</span>
          </li>
        ))}
      </ol>
      {!readOnly ? (
        <form
          className="chat__form"
          onSubmit={(event) => {
            event.preventDefault();
            void send();
          }}
        >
          <label htmlFor={inputId} className="visually-hidden">
            {t('classroom.chat.label')}
          </label>
          <textarea
            id={inputId}
            className="chat__input"
            rows={2}
            maxLength={CHAT_MAX_CHARS}
            value={draft}
            placeholder={t('classroom.chat.placeholder')}
            onChange={(e) => setDraft(e.target.value)}
            onKeyDown={onKeyDown}
            data-testid="chat-input"
          />
          <span className="chat__count muted" aria-hidden="true">
            {t('classroom.chat.count', { n: [...draft].length, max: CHAT_MAX_CHARS })}
          </span>
          <Button type="submit" loading={sending} disabled={disabled || chatText(draft) === null}>
            {t('classroom.chat.send')}
          </Button>
        </form>
      ) : (
        <p className="chat__readonly muted">{t('classroom.chat.readOnly')}</p>
      )}
    </div>
  );
}
