import { useTranslation } from 'react-i18next';
import { TEXT_BOX_WIDTH, TEXT_FONT_SIZE } from '#core/contracts/board.ts';

export interface TextBoxProps {
  /** Where the box opens, in the canvas's pixels. */
  at: { x: number; y: number };
  text: string;
  /** Canvas pixels per board unit, so the box matches the text it makes. */
  scale: number;
  onText: (text: string) => void;
  onCancel: () => void;
  onCommit: () => void;
}

/** The text tool's box (classroom board and studio board): Esc cancels, Ctrl/Cmd+Enter or OK commits. */
export function TextBox({ at, text, scale, onText, onCancel, onCommit }: TextBoxProps) {
  const { t } = useTranslation();
  return (
    <div className="board-text" style={{ left: at.x, top: at.y }} data-testid="board-text-editor">
      <textarea
        autoFocus
        aria-label={t('board.text.label')}
        placeholder={t('board.text.placeholder')}
        value={text}
        style={{ width: Math.max(120, TEXT_BOX_WIDTH * scale), fontSize: Math.max(12, TEXT_FONT_SIZE * scale) }}
        onChange={(e) => onText(e.currentTarget.value)}
        onKeyDown={(e) => {
          if (e.key === 'Escape') onCancel();
          if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) onCommit();
        }}
      />
      <div className="board-text__actions">
        <button type="button" className="btn btn--ghost btn--small" onClick={onCancel}>
          {t('board.text.cancel')}
        </button>
        <button type="button" className="btn btn--primary btn--small" onClick={onCommit} data-testid="board-text-ok">
          {t('board.text.ok')}
        </button>
      </div>
    </div>
  );
}
