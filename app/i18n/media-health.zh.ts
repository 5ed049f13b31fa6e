/** The classroom's media health (ADR 101): blocked playback, the device-exception view, a microphone that sends nothing; Chinese. */
export const mediaHealthZh = {
  playback: {
    title: '浏览器暂停了声音和画面',
    text: '浏览器需要你点击一次，才能播放课堂的声音。',
    button: '点击开启声音和画面',
  },
  device: {
    heading: '设备异常',
    what: '发生了什么',
    todo: '怎么做',
    retry: '重试',
    choose: '更换设备',
    close: '暂不使用',
    helpTitle: '如何允许使用摄像头和麦克风',
    helpSteps: {
      one: '点击地址栏左侧的锁形或摄像头图标。',
      two: '把“摄像头”和“麦克风”设为“允许”。',
      three: '允许后这里会自动重新打开设备；如果没有，请点“重试”。不需要刷新页面，你不会离开教室。',
    },
    source: { mic: '麦克风', camera: '摄像头', both: '摄像头和麦克风' },
    title: {
      noDevices: '没有找到摄像头和麦克风',
      noWebcam: '没有找到摄像头',
      noMicrophone: '没有找到麦克风',
      occupied: '{{device}}正被其他程序使用',
      denied: '浏览器不允许使用{{device}}',
      resolution: '摄像头不支持当前分辨率',
      unplugged: '{{device}}已断开',
      deviceUpdate: '所选的{{device}}已不存在',
      deviceError: '{{device}}无法启动',
    },
    text: {
      noDevices: '请连接摄像头或麦克风后点“重试”。没有设备也可以继续看和听。',
      noWebcam: '请连接摄像头后点“重试”。你仍可以用麦克风上课。',
      noMicrophone: '请连接麦克风后点“重试”。在此之前其他人听不到你。',
      occupied: '请关闭正在使用{{device}}的其他程序（会议软件、其他浏览器标签页）后点“重试”，或更换设备。',
      denied: '按下面的步骤允许后，设备会自动重新打开。',
      resolution: '已尝试 640x360 和 640x480，这个摄像头都无法打开。请更换摄像头后重试。',
      unplugged: '为了不让大家看到卡住的画面或听到杂音，已为你静音。重新连接或更换设备后点“重试”。',
      deviceUpdate: '已为你静音。请选择另一个设备，或重新连接后点“重试”。',
      deviceError: '请点“重试”。如果仍然失败，请重新插拔设备或重启浏览器。',
    },
  },
  silent: {
    me: '你的麦克风没有发出声音，请检查',
    meHint: '已经 10 秒没有收到 {{device}} 的声音。请确认它已连接、没有被硬件开关静音，或在“设备”中换一个麦克风，然后点“重试”。',
    thisMic: '当前麦克风',
    teacher: '没有收到 {{name}} 的声音',
    badge: '无声音',
    level: '{{name}} 的麦克风音量',
    retry: '重试',
    dismiss: '知道了',
  },
};

export type MediaHealthMessages = typeof mediaHealthZh;
