/** The classroom's chrome (ADR 090): top bar, More menu, leave dialog, confirms, default names; Chinese (the shape every language follows). */
export const chromeZh = {
  leaveShort: '退出',
  moreLabel: '更多操作',
  language: '切换语言：English',
  leave: {
    title: '退出教室',
    creatorText: '你可以只是自己离开，学生留在教室里继续；也可以结束课堂，所有人都会离开。',
    memberText: '确定退出教室吗？你可以稍后用教室号重新进入。',
    leaveOnly: '仅自己离开',
    leaveOnlyHint: '其他人继续上课',
    endForAll: '结束课堂',
    endForAllHint: '所有人离开，教室关闭',
    confirmLeave: '退出',
  },
  endClass: {
    title: '结束课堂？',
    text: '所有人都会离开教室，教室将关闭，不能再进入。',
  },
  kick: {
    title: '踢出 {{name}}？',
    text: '{{name}} 将被移出课堂，并且不能再进入本教室。',
    confirm: '踢出',
  },
  /** The name a new teacher gets (server: 老师 + the mobile's last 4 digits), as shown in this language. */
  defaultName: '老师{{digits}}',
};
