/** The help topics the spec linked as PDFs (web, board, record, live, camera, microphone, speaker). */
export const HELP_TOPICS = ['web', 'board', 'record', 'live', 'camera', 'microphone', 'speaker', 'courseware'] as const;
export type HelpTopic = (typeof HELP_TOPICS)[number];
export const isHelpTopic = (v: string | undefined): v is HelpTopic => (HELP_TOPICS as readonly string[]).includes(v ?? '');
export const helpPath = (topic: HelpTopic) => `/help/${topic}`;
