/** The studio's icons: inline SVG line drawings (24 x 24) in the text colour, as app/board/icons.tsx. */
const PATHS = {
  video: 'M3 7h12v10H3z M15 10.5l6-3.5v10l-6-3.5',
  board: 'M3 4h18v12H3z M8 20l4-4 4 4 M7 12l3-3 2 2 4-4',
  doc: 'M6 3h8l4 4v14H6z M14 3v4h4 M9 12h6 M9 16h6',
  screen: 'M3 4h18v12H3z M8 20h8 M12 16v4 M9 10l3-3 3 3 M12 7v6',
  screenOff: 'M3 4h18v12H3z M8 20h8 M12 16v4 M9 7l6 6 M15 7l-6 6',
  mic: 'M12 3a3 3 0 0 1 3 3v5a3 3 0 0 1-6 0V6a3 3 0 0 1 3-3z M5 11a7 7 0 0 0 14 0 M12 18v3',
  micOff: 'M15 10V6a3 3 0 0 0-5.7-1.3 M9 9v2a3 3 0 0 0 4.5 2.6 M5 11a7 7 0 0 0 11.2 5.6 M19 11a7 7 0 0 1-.5 2.6 M12 18v3 M3 3l18 18',
  camera: 'M3 7h12v10H3z M15 10.5l6-3.5v10l-6-3.5',
  cameraOff: 'M9 7h6v6 M15 15v2H3V7h2 M15 10.5l6-3.5v10l-3-1.7 M3 3l18 18',
  settings:
    'M12 9a3 3 0 1 0 .01 0 M19.4 13a7.6 7.6 0 0 0 0-2l2-1.6-2-3.4-2.4 1a7.5 7.5 0 0 0-1.7-1L15 3.5h-4l-.3 2.5a7.5 7.5 0 0 0-1.7 1l-2.4-1-2 3.4 2 1.6a7.6 7.6 0 0 0 0 2l-2 1.6 2 3.4 2.4-1a7.5 7.5 0 0 0 1.7 1l.3 2.5h4l.3-2.5a7.5 7.5 0 0 0 1.7-1l2.4 1 2-3.4z',
  exit: 'M10 4H5v16h5 M14 8l4 4-4 4 M18 12H9',
  collapse: 'M15 5l-7 7 7 7',
  expand: 'M9 5l7 7-7 7',
  record: 'M12 6a6 6 0 1 0 .01 0',
  pause: 'M8 5v14 M16 5v14',
  resume: 'M7 4l13 8-13 8z',
  stop: 'M6 6h12v12H6z',
  prev: 'M15 5l-7 7 7 7',
  next: 'M9 5l7 7-7 7',
  upload: 'M12 16V4 M7 9l5-5 5 5 M4 16v4h16v-4',
  download: 'M12 4v12 M7 11l5 5 5-5 M4 16v4h16v-4',
  again: 'M4 12a8 8 0 1 0 2.3-5.7 M4 4v4h4',
  home: 'M3 11l9-7 9 7 M5 9.5V20h14V9.5 M10 20v-6h4v6',
  check: 'M5 12.5l4.5 4.5L19 7',
  alert: 'M12 3l10 18H2z M12 10v5 M12 18h.01',
  folder: 'M3 6h7l2 2h9v11H3z',
  list: 'M8 6h13 M8 12h13 M8 18h13 M3.5 6h.01 M3.5 12h.01 M3.5 18h.01',
  phone: 'M7 3h10v18H7z M11 18h2',
} as const;

export type StudioIconName = keyof typeof PATHS;

export function StudioIcon({ name, size = 22 }: { name: StudioIconName; size?: number }) {
  return (
    <svg className="studio-icon" viewBox="0 0 24 24" width={size} height={size} aria-hidden="true" focusable="false">
      <path d={PATHS[name]} fill="none" stroke="currentColor" strokeWidth="1.8" strokeLinecap="round" strokeLinejoin="round" />
    </svg>
  );
}
