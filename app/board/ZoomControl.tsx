import { Minus, Plus } from 'lucide-react';
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { stepZoom } from '#core/board/draw/tools.ts';

/** The board's zoom: out, the value (click: 100 %), in; what follows it (e.g. 'follow me') sits in the same group. */
export function ZoomControl({ zoom, onZoom, children }: { zoom: number; onZoom: (zoom: number) => void; children?: ReactNode }) {
  const { t } = useTranslation();
  return (
    <div className="board__zoom" role="group" aria-label={t('board.zoom', { n: Math.round(zoom * 100) })}>
      <button
        type="button"
        className="board-tool"
        aria-label={t('board.tools.zoomOut')}
        title={t('board.tools.zoomOut')}
        onClick={() => onZoom(stepZoom(zoom, -1))}
        disabled={zoom <= 0.1 + 1e-9}
      >
        <Minus size={16} aria-hidden="true" />
      </button>
      <button
        type="button"
        className="board__zoom-value"
        onClick={() => onZoom(1)}
        title={t('board.tools.zoomReset')}
        data-testid="zoom-value"
      >
        {Math.round(zoom * 100)}%
      </button>
      <button
        type="button"
        className="board-tool"
        aria-label={t('board.tools.zoomIn')}
        title={t('board.tools.zoomIn')}
        onClick={() => onZoom(stepZoom(zoom, 1))}
        disabled={zoom >= 1.5 - 1e-9}
      >
        <Plus size={16} aria-hidden="true" />
      </button>
      {children}
    </div>
  );
}
