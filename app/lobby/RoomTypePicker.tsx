import { ArrowLeft, ArrowRight, AudioLines, Crown, Presentation, RadioTower, Video, type LucideIcon } from 'lucide-react';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { Button } from '#app/components/Button.tsx';
import { Dialog } from '#app/components/Dialog.tsx';
import { api, isOk } from '#app/lib/api.ts';
import { useRequestLock } from '#app/lib/lock.ts';
import type { CreateChoice } from './useCreateRoom.ts';

type CardKey = 'paidMini' | 'freeMini' | 'whiteboard' | 'audio' | 'large';

interface Card {
  key: CardKey;
  paid: boolean;
  icon: LucideIcon;
  choice: CreateChoice | 'paid';
}

const CARDS: readonly Card[] = [
  { key: 'paidMini', paid: true, icon: Crown, choice: 'paid' },
  { key: 'freeMini', paid: false, icon: Video, choice: { roomType: 1, consumption: 'off' } },
  { key: 'whiteboard', paid: false, icon: Presentation, choice: { roomType: 2 } },
  { key: 'audio', paid: false, icon: AudioLines, choice: { roomType: 3 } },
  { key: 'large', paid: false, icon: RadioTower, choice: { roomType: 4 } },
];

interface Props {
  onBack: () => void;
  onCreate: (choice: CreateChoice) => Promise<void>;
  creating: boolean;
}

/** The room-type picker (docs/product/01-account-and-lobby.md §2 newer layout, docs/product/decisions.md room types) with the credit prompt of §4. */
export function RoomTypePicker({ onBack, onCreate, creating }: Props) {
  const { t } = useTranslation();
  const [credit, setCredit] = useState<{ number: number } | null>(null);
  const [pendingKey, setPendingKey] = useState<CardKey | null>(null);
  const status = useRequestLock();

  const pick = async (card: Card) => {
    setPendingKey(card.key);
    if (card.choice !== 'paid') {
      await onCreate(card.choice);
      return;
    }
    await status.run(async () => {
      const envelope = await api('getConsumptionStatus', {}, { onRetry: () => void pick(card) });
      if (!isOk(envelope)) return;
      if (envelope.data.status === 0) setCredit({ number: envelope.data.number });
      else await onCreate({ roomType: 1, consumption: 'on' });
    });
  };

  const busy = creating || status.busy;

  return (
    <section className="picker" aria-labelledby="picker-title" data-testid="room-type-picker">
      <div className="picker__bar">
        <button type="button" className="btn btn--ghost picker__back" onClick={onBack}>
          <ArrowLeft size={16} aria-hidden="true" /> {t('common.back')}
        </button>
        <h1 id="picker-title" className="picker__title">
          {t('picker.title')}
        </h1>
        <Link className="picker__help" to="/help/web" target="_blank" rel="noopener">
          {t('picker.help')}
        </Link>
      </div>
      <ul className="picker__grid">
        {CARDS.map((card) => (
          <li key={card.key}>
            <button
              type="button"
              className={`type-card${card.paid ? ' type-card--paid' : ''}`}
              onClick={() => void pick(card)}
              disabled={busy}
              aria-busy={busy && pendingKey === card.key ? true : undefined}
              data-testid={`create-${card.key}`}
            >
              <span className="type-card__icon" aria-hidden="true">
                <card.icon size={28} strokeWidth={1.75} />
              </span>
              <span className="type-card__name">{t(`picker.${card.key}.name`)}</span>
              <span className={`badge${card.paid ? ' badge--paid' : ''}`}>{card.paid ? t('picker.paid') : t('picker.free')}</span>
              <span className="type-card__text">{t(`picker.${card.key}.text`)}</span>
              <span className="type-card__cta">
                {busy && pendingKey === card.key ? <span className="spinner" aria-hidden="true" /> : null}
                {t('picker.create')} <ArrowRight size={16} aria-hidden="true" />
              </span>
            </button>
          </li>
        ))}
      </ul>
      {credit ? (
        <Dialog
          title={t('credit.title')}
          onClose={() => setCredit(null)}
          actions={
            <>
              <Button
                variant="secondary"
                loading={creating}
                onClick={() => {
                  setCredit(null);
                  void onCreate({ roomType: 1, consumption: 'off' });
                }}
              >
                {t('credit.createFree')}
              </Button>
              <Button
                disabled={credit.number <= 0}
                loading={creating}
                aria-describedby={credit.number <= 0 ? 'credit-hint' : undefined}
                onClick={() => {
                  setCredit(null);
                  void onCreate({ roomType: 1, consumption: 'on' });
                }}
              >
                {t('credit.createPaid')}
              </Button>
            </>
          }
        >
          <p className="credit__number">{t('credit.remaining', { n: credit.number })}</p>
          <p className="muted">{t('credit.windowNote')}</p>
          {credit.number <= 0 ? (
            <p id="credit-hint" className="hint">
              {t('credit.noCredits')}
            </p>
          ) : null}
        </Dialog>
      ) : null}
    </section>
  );
}
