/** Demo rooms (ADR 092): /createDemo, /demo/{id}, and the links to them; Chinese, the default language. */
export const demoZh = {
  tryDemo: '免费体验演示教室',
  tryDemoShort: '体验演示',
  create: {
    pageTitle: '体验演示教室',
    title: '先试一试板书',
    lead: '无需注册，马上得到一间属于你的真实教室：白板、示例课件、聊天和你自己的摄像头预览。',
    point1: '在示例课件上写字、翻页',
    point2: '把链接发给朋友，一起在白板上画',
    point3: '{{hours}} 小时后演示教室自动结束，不消耗任何课时',
    start: '开始演示',
    starting: '正在准备你的演示教室…',
    failed: '演示教室没有创建成功，请重试',
    signIn: '已有账号？登录创建正式教室',
  },
  room: {
    badge: '演示 · {{time}} 结束',
    badgeLabel: '演示教室，{{time}} 结束',
    makeYourOwn: '创建你自己的教室',
  },
  name: {
    title: '加入演示教室 {{n}}',
    lead: '这是一间演示教室，无需注册即可加入，并可以在白板上书写。',
  },
  ended: {
    pageTitle: '演示教室已结束',
    title: '这间演示教室已经结束',
    text: '演示教室 {{n}} 的体验时间已到，教室已关闭。',
    again: '再开一间演示教室',
    signIn: '登录创建正式教室',
  },
};

export type DemoMessages = typeof demoZh;
