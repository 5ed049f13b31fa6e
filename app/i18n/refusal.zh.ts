/** The refusal page /refused/{kind} and the phone banner (ADR 091); Chinese, the default language. */
export const refusalZh = {
  pageTitle: '无法进入教室',
  roomLabel: '教室号 {{room}}',
  removed: {
    title: '你已被老师移出本教室',
    text: '老师把你移出了这节课，你无法再次进入这间教室。',
    next: '如果这是误操作，请联系老师，请老师发给你新的教室链接。',
  },
  full: {
    title: '教室人数已满',
    text: '这间教室的座位都已经有人了。',
    next: '请稍后再试；或请老师升级教室，增加座位。',
    nextNoUpgrade: '请稍后再试；或请老师换一间座位更多的教室。',
  },
  closed: {
    title: '这节课已经结束',
    text: '老师已经结束了这间教室的课程。',
    next: '请向老师索取下一节课的链接。',
  },
  'time-up': {
    title: '本节课时间已到',
    text: '语音课的时长已经用完，教室到点自动关闭，不是老师结束的。',
    next: '如需继续上课，请老师重新创建教室并发给你新的链接。',
  },
  'not-found': {
    title: '没有找到这间教室',
    text: '教室号不存在，或者这节课已经结束。',
    next: '请核对教室号，或请老师重新发送链接。',
  },
  'no-permission': {
    title: '这个链接无法打开教室',
    text: '链接不完整，或者不是发给你的。',
    next: '请原样打开老师发来的链接。如果你是这间教室的老师，请先登录。',
  },
  'too-many': {
    title: '尝试次数太多',
    text: '短时间内进入教室的次数太多了。',
    next: '请等一分钟后再试。',
  },
  unavailable: {
    title: '暂时无法进入教室',
    text: '进入教室时出现了问题。',
    next: '请稍后重试；如果一直这样，请联系老师。',
  },
  tryAgain: '重新进入',
  signIn: '老师登录',
  home: '返回首页',
  joinOther: '进入其他教室',
  phoneBrowser: {
    ios: '在 iPhone 和 iPad 上，请用 Safari 打开老师发来的教室链接上课。',
    android: '在安卓手机和平板上，请用 Chrome 浏览器打开老师发来的教室链接上课。',
  },
  banner: {
    text: '也可以下载板书 App 上课。',
    download: '下载 App',
    dismiss: '关闭下载提示',
  },
};

export type RefusalMessages = typeof refusalZh;
