/**
 * The error catalogue of the spec. The domain throws `DomainError` with one of these codes; each
 * adapter (the /api envelope, a page, a socket ack) maps it in one place. Messages exist in both
 * languages so the answer follows the caller's language.
 */
export type Lang = 'zh' | 'en';

export const errorCatalogue = {
  '1': { zh: '请求失败', en: 'Request failed' },
  '5': { zh: '参数不合法', en: 'Illegal parameters' },
  '6': { zh: '令牌校验失败', en: 'Token check failed' },
  '7': { zh: '未登录', en: 'Not logged in' },
  '8': { zh: '非法请求', en: 'Illegal request' },
  '9': { zh: '服务异常', en: 'Service exception' },
  /** The client speaks an older protocol version than this server (a socket channel's handshake or join). */
  '10': { zh: '版本已更新，请刷新页面', en: 'A new version is available, please refresh the page' },
  '20': { zh: '服务异常', en: 'Service exception' },
  '21': { zh: '服务不存在', en: 'Service not found' },
  '21001': { zh: '登录已失效，请重新登录', en: 'Your sign-in has expired, please sign in again' },
  '21006': { zh: '暂无会员信息', en: 'No membership information' },
  '21007': { zh: '您的课时已用完', en: 'You have used up your room credits' },
  '21008': { zh: '扣除课时失败', en: 'Failed to deduct a credit' },
  '25002': { zh: '订单不存在，请重新下单', en: 'The order does not exist, please order again' },
  '25003': { zh: '非本人操作', en: 'This is not your own order' },
  '25004': { zh: '抱歉，订单号已被使用，请重新下单', en: 'Sorry, the order number has already been used, please order again.' },
  '25006': { zh: '生成支付二维码失败', en: 'Failed to create the payment QR code' },
  '25007': { zh: '该商品已下架', en: 'This product has been taken off the shelf.' },
  '25008': {
    zh: '您已购买更高级别的套餐，暂无需购买此套餐，如有疑问请联系客服',
    en: 'You have already bought a higher-level package, no need to buy this one for now; contact support if in doubt.',
  },
  '25009': { zh: '抱歉，您今天购买此类套餐已达上限', en: "Sorry, you have reached today's purchase limit for this kind of package." },
  '25010': { zh: '抱歉，您今天提交的订单过多', en: 'Sorry, you submitted too many orders today.' },
  '25011': { zh: '推广码不正确，请重新输入', en: 'Promo code incorrect, please re-enter' },
  '25012': { zh: '不能填写自己的推广码', en: 'You cannot enter your own promo code' },
  '25013': { zh: '推广积分不足，无法兑换该套餐', en: 'Not enough promo points for this package' },
  '31001': { zh: '创建教室失败', en: 'Failed to create the classroom' },
  '31002': { zh: '教室号码不正确，请重新输入', en: 'Classroom number incorrect, please re-enter' },
  '31003': { zh: '教室人数已满，请稍后再试', en: 'The classroom is full, please try later' },
  '31004': { zh: '没有权限操作该房间', en: 'No permission to operate this room' },
  '31005': { zh: '踢出用户失败', en: 'Failed to kick out the user' },
  '31006': { zh: '进入教室太频繁，请稍后再试', en: 'Too many attempts to join, please try again later' },
  '31007': { zh: '请结束当前连麦后，再邀请其他人上麦', en: 'End the current microphone connection before inviting someone else' },
  '31008': { zh: '发言太频繁，请稍后再试', en: 'You are sending messages too fast, please wait a moment' },
  '31009': { zh: '房间已关闭', en: 'The room is closed' },
  '31010': { zh: '请先结束课堂，再删除', en: 'End the class before deleting it' },
  /** A demo room past its end (ADR 092). */
  '31011': { zh: '演示教室已结束，请重新创建一个', en: 'This demo room has ended, please start a new one' },
  /** Too many demo rooms from one address within an hour (ADR 092). */
  '31012': { zh: '创建演示教室太频繁，请稍后再试', en: 'Too many demo rooms from your address, please try again later' },
  /** Class tools (ADR 113): the quiz, poll, timer or buzzer round named is not open (ended, closed, unknown). */
  '31020': { zh: '该活动已结束或不存在', en: 'This activity has ended or does not exist' },
  /** A poll vote is one per person and cannot be changed. */
  '31021': { zh: '您已经提交过了', en: 'You have already answered' },
  /** Per-person limit on answers, votes and buzzer presses. */
  '31022': { zh: '操作太频繁，请稍后再试', en: 'Too fast, please wait a moment' },
  /** Random pick with no student online. */
  '31023': { zh: '当前没有可抽选的学生', en: 'No student is online to pick' },
  /** A buzzer press after someone else won the round. */
  '31024': { zh: '已有人抢先了', en: 'Someone was faster' },
  /** The stage's seats are all taken (ADR 112). */
  '31030': { zh: '台上座位已满，请先请一位学生下台', en: 'The stage is full: take someone down first' },
  /** Hands raised too often (ADR 112). */
  '31031': { zh: '举手太频繁，请稍后再试', en: 'You are raising your hand too often, please wait a moment' },
  /** Breakout groups (issue 31): they run already. */
  '31040': { zh: '分组讨论已在进行中', en: 'Groups are running already' },
  /** Breakout groups: none running (ended, or never started). */
  '31041': { zh: '当前没有分组讨论', en: 'No groups are running' },
  /** Breakout groups: the whiteboard has too few free pages for one per group. */
  '31042': { zh: '白板空白页不足，无法为每组分配一页', en: 'The whiteboard has too few free pages for the groups' },
  /** Breakout groups: the group has as many students as a group may hold. */
  '31043': { zh: '该小组人数已满', en: 'This group is full' },
  /** Breakout groups: the teacher does not let students choose. */
  '31044': { zh: '老师未允许自选小组', en: 'The teacher has not allowed choosing a group' },
  '34001': { zh: '只能插入PPT、DOC、PDF', en: 'Only PPT, DOC, PDF supported' },
  '34002': { zh: '文件不能超过50M', en: 'The file cannot exceed 50M' },
  '34003': { zh: '文件内容与类型不符', en: 'The file content does not match its type' },
  '34004': { zh: '上传的文件不存在或不完整，请重新上传', en: 'The uploaded file is missing or incomplete, please upload it again' },
  '34005': { zh: '文件校验失败，请重新上传', en: 'The file check failed, please upload it again' },
  '34006': { zh: '文档不存在', en: 'The document does not exist' },
  '34007': { zh: '只能删除解析完成或解析失败的文档', en: 'Only documents that finished parsing or failed can be deleted' },
  '34008': { zh: '文档尚未解析完成', en: 'The document has not finished parsing' },
  '34009': { zh: '教室中没有打开的课件', en: 'No courseware is open in this room' },
  '34010': { zh: '页码超出范围', en: 'The page is out of range' },
  '34011': { zh: '上传太频繁，请稍后再试', en: 'Too many uploads, please try again later' },
  '34012': { zh: '课件解析服务暂不可用', en: 'Courseware parsing is not available right now' },
  '34013': { zh: '当前课件不是视频', en: 'The courseware is not a video' },
  '34014': { zh: '解析失败', en: 'Parse failed' },
  '34015': { zh: '无法确认您持有该文件，请重新上传', en: 'Could not confirm that you have this file, please upload it' },
  '35001': { zh: '验证码错误，请重新输入', en: 'Captcha wrong, please re-enter' },
  '35002': { zh: '验证码错误，请重新输入', en: 'Captcha wrong, please re-enter' },
  '35003': { zh: '反馈太频繁，请稍后再试', en: 'Too much feedback in a short time, please try again later' },
  '36001': { zh: '申请太频繁，请稍后再试', en: 'Too many applications, please try again later' },
  '37001': { zh: '录制文件不存在', en: 'The recording does not exist' },
  '37002': { zh: '本教室正在录制中', en: 'This class is already being recorded' },
  '37003': { zh: '本教室当前没有进行中的录制', en: 'No recording is running in this class' },
  '37004': {
    zh: '云录制需要有效的会员、课时或录制套餐',
    en: 'Cloud recording needs an active membership, use pack or recording package',
  },
  '37005': { zh: '录制文件正在转码，请稍后再试', en: 'The recording is still being transcoded, please try later' },
  '37006': { zh: '分享链接无效', en: 'The share link is invalid' },
  '37007': { zh: '分享链接已过期', en: 'The share link has expired' },
  '37009': { zh: '访问太频繁，请稍后再试', en: 'Too many requests, please try again later' },
  '32101': { zh: '白板操作无法执行，请刷新后重试', en: 'This whiteboard operation cannot be applied, please reload the board' },
  '32102': { zh: '只能插入jpg/png格式的图片', en: 'Only jpg/png images can be inserted' },
  '32103': { zh: '图片不能超过20M', en: 'The image cannot exceed 20 MB' },
  '32104': { zh: '白板操作太频繁，请稍后再试', en: 'Too many whiteboard operations, please slow down' },
  '33001': { zh: '媒体令牌无效或已过期', en: 'The media token is invalid or has expired' },
  '33002': { zh: '没有权限发布该媒体', en: 'You may not publish this media' },
  '33003': { zh: '媒体流不存在', en: 'No such media stream in this room' },
  '33004': { zh: '媒体协商失败', en: 'Media negotiation failed' },
  '33005': { zh: '媒体服务器不可用', en: 'The media server is not available' },
  '38001': { zh: '秘钥填写错误，请重新输入', en: 'The secret key was filled out incorrectly. Please re-enter it.' },
  '38002': { zh: '不支持该直播平台', en: 'This live platform is not available' },
  '38003': { zh: '本教室正在直播中', en: 'This class is already live' },
  '38004': { zh: '本教室当前没有进行中的直播', en: 'No live stream is running in this class' },
  '38005': { zh: '直播地址不正确，请重新输入', en: 'The stream address is incorrect, please re-enter it' },
  '38006': { zh: '秘钥不能为空', en: 'Key can not null' },
  '39001': { zh: '上传不存在或已过期', en: 'The upload does not exist or has expired' },
  '39002': { zh: '录制文件太大', en: 'The recording is too large' },
  '39003': { zh: '请填写文件名', en: 'please fill in the file name' },
  '39004': { zh: '文件名最多15个字符', en: 'The file name can be at most 15 characters' },
  '39005': { zh: '上传不完整，请重新上传', en: 'The upload is incomplete, please upload again' },
  '39006': { zh: '上传太频繁，请稍后再试', en: 'Too many uploads, please try again later' },
  '42001': { zh: '验证码发送太频繁，请稍后再试', en: 'Codes are sent at most once a minute, please wait' },
  '42003': { zh: '发送次数超出限制', en: 'Send count over limit' },
  '42004': { zh: '手机号或验证码不正确', en: 'Phone number or code incorrect' },
  '42009': { zh: '该手机号本小时发送次数超限', en: 'Hourly limit for this phone number exceeded' },
  '42010': { zh: '该手机号今日发送次数超限', en: 'Daily limit for this phone number exceeded' },
  '42014': { zh: '该地区暂不支持短信', en: 'SMS is not supported for this region' },
  '42015': { zh: '验证码发送失败', en: 'Failed to send the code' },
} as const satisfies Record<string, Record<Lang, string>>;

export type ErrorCode = keyof typeof errorCatalogue;

export function messageFor(code: ErrorCode, lang: Lang): string {
  return errorCatalogue[code][lang];
}

/**
 * Why a refusal happened, where one code covers several cases the person must tell apart (ADR 091):
 * 'removed' is a 31004 for someone the teacher removed from this room. Travels as the envelope's
 * `reason`; absent otherwise.
 */
export type RefusalReason = 'removed';

/** A rule of the domain said no. Carries the spec's code; `detail` is for logs, never for users. */
export class DomainError extends Error {
  readonly code: ErrorCode;
  readonly detail: string | undefined;
  readonly reason: RefusalReason | undefined;
  constructor(code: ErrorCode, detail?: string, reason?: RefusalReason) {
    super(`${code}: ${errorCatalogue[code].en}${detail ? ` (${detail})` : ''}`);
    this.name = 'DomainError';
    this.code = code;
    this.detail = detail;
    this.reason = reason;
  }
}

/**
 * By class, or by name and a known code: the page bundle (and a test runner's module graph) can
 * hold a second copy of this module, whose class is not this one.
 */
export const isDomainError = (e: unknown): e is DomainError =>
  e instanceof DomainError ||
  (e instanceof Error &&
    e.name === 'DomainError' &&
    typeof (e as { code?: unknown }).code === 'string' &&
    Object.hasOwn(errorCatalogue, (e as unknown as { code: string }).code));

export const illegalParams = (detail?: string) => new DomainError('5', detail);
export const notLoggedIn = () => new DomainError('7');
export const tokenInvalid = () => new DomainError('21001');
export const roomNotFound = () => new DomainError('31002');
export const roomFull = () => new DomainError('31003');
export const notAllowed = (detail?: string) => new DomainError('31004', detail);
/** 31004 for a person the teacher removed from the room: every later join says so (ADR 091). */
export const removedFromRoom = () => new DomainError('31004', 'kicked out of this room', 'removed');
export const toolGone = (detail?: string) => new DomainError('31020', detail);
export const alreadyAnswered = () => new DomainError('31021');
export const toolTooFast = () => new DomainError('31022');
export const nobodyToPick = () => new DomainError('31023');
export const buzzerTaken = () => new DomainError('31024');
export const refreshPage = (detail?: string) => new DomainError('10', detail);
