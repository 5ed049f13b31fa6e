/** Class modes, the capability explanations and the audio class's clock (issue 27, ADR 099); Chinese, the default language. */
export const modesZh = {
  badgeLabel: '课堂模式：{{mode}}',
  discuss: '讨论',
  lecture: '授课',
  discussHint: '讨论模式：学生可以开麦发言',
  lectureHint: '授课模式：只有老师和台上的学生可以发言',
  nowLecture: '老师切换到了授课模式，学生麦克风已关闭',
  nowDiscuss: '老师切换到了讨论模式，你可以打开麦克风发言',
  micClosed: '授课模式：麦克风已关闭',
  micClosedWhy: '授课模式下只有老师和台上的同学可以发言。老师切回讨论模式或邀请你上台后，你就可以开麦。',
  clock: {
    label: '本节课剩余时间',
    warn5: '语音课还剩 5 分钟，时间到后教室会自动关闭',
    warn1: '语音课还剩 1 分钟，时间到后教室会自动关闭',
    ended: '本节课时间已到，教室已自动关闭',
  },
};

export type ModesMessages = typeof modesZh;
