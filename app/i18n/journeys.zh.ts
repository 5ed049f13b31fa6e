/** A new person's ways in and out (ADR 098): the number box without an account, the visitor's front door, the left page; Chinese. */
export const journeysZh = {
  join: {
    title: '用教室号进入课堂',
    text: '学生不需要账号：输入老师给你的教室号，再填上你的名字。',
    label: '教室号',
    placeholder: '例如 386201',
    submit: '进入教室',
    invalid: '请输入正确的教室号',
  },
  front: {
    title: '进入课堂',
    lead: '输入老师给你的教室号就能上课，不需要注册。',
    teacherTitle: '我是老师',
    teacherText: '用手机号登录，创建教室、上课、录课。',
    signIn: '老师登录',
    about: '了解板书',
  },
  login: {
    student: '我是学生，用教室号进入',
    about: '了解板书',
  },
  left: {
    title: '你已离开课堂',
    room: '教室号 {{room}}',
    text: '课还在进行时，你可以随时回到这间教室。',
    rejoin: '重新进入教室',
    home: '返回首页',
  },
};

export type JourneysMessages = typeof journeysZh;
