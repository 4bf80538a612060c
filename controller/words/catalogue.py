"""The catalogue: every message a person reads from the API, Chinese first, English beside.

Three tables, each easy to add to:

- ``CATALOGUE``: key -> (zh, en) templates, for what the controller says by key (``say``).
- ``MESSAGES``: (pattern, zh) for messages raised in English where they happen (the engine
  stays free of wording; staff_acts and the stores keep their plain exceptions). A pattern
  matches the whole message, or the part after a field path (``winners[0].hand: …``);
  its named groups fill the zh template: ``seat…`` groups are absolute seats (0-3, said
  as 1号位…4号位), ``ruleset`` a ruleset id (said by its name), ``field`` a field name.
- ``FIELDS`` and ``VALUES``: a field's name and a value's name in words.

A message raised already in Chinese (``有精平胡不能抓炮``) needs no entry: its field path
is worded and its English aside kept for ``en``.
"""

from __future__ import annotations

import re

from controller.words.house_rules import HOUSE_MESSAGES

CATALOGUE: dict[str, tuple[str, str]] = {
    "auth.log_in": (
        "请先登录",
        "log in first: POST /api/v1/auth/login, then send the cookie or 'Authorization: Bearer'",
    ),
    "auth.owners_only": ("这是老板的功能，工作人员不能使用", "an owner's route: staff may not"),
    "auth.wrong_password": ("名字或密码不对", "wrong name or password"),
    "auth.too_many_failures": (
        "登录失败次数太多：请 {wait} 秒后再试",
        "too many failed logins for {name!r} or from here; try again in {wait} s",
    ),
    "auth.busy": (
        "同时登录的人太多：请几秒后再试",
        "too many logins at once; try again in a few seconds",
    ),
    "staff.not_of_table": (
        "{name} 不是 {table} 桌的工作人员",
        "{name} is not staff of table {table}",
    ),
    "staff.hub": ("总台不打牌：请到牌桌上操作", "the hub plays no hand: act at the table"),
    "staff.no_live_table": (
        "这里没有运行中的牌桌：请到牌桌上操作",
        "no live table here: act at the table",
    ),
    "staff.not_taken": (
        "牌桌没有接收这次操作，什么都没有改变：请再试一次",
        "the table did not take the act; nothing was done, try again",
    ),
    "staff.no_hand_finished": ("本台还没有打完的牌局", "no hand finished at this table yet"),
    "staff.no_loss": ("记录没有丢失，无需确认", "no loss of the store to acknowledge"),
    "request.invalid": ("填写有误：{where}", "{en}"),
    # mjtable verify-dice
    "dice.error": ("错误：{zh}", "error: {en}"),
    "dice.ok": (
        "骰子：全部 {n} 次都出自承诺的种子",
        "dice: all {n} roll(s) derive from the committed seed",
    ),
    "dice.failed": ("骰子：核对失败", "dice: FAILED"),
    "dice.unchecked": (
        "骰子：这份记录里没有承诺，无法核对",
        "dice: no commitment in this log: its rolls cannot be checked",
    ),
    "dice.problem": ("问题：{zh}", "problem: {en}"),
    "dice.note": ("说明：{zh}", "note: {en}"),
    "dice.unreadable": ("第 {n} 个事件读不懂", "event {n} is not a JSON object"),
    "dice.bad_event": ("第 {n} 个事件读不懂：{why}", "event {n}: {why}"),
    "dice.cannot_read": ("读不了 {path}：{why}", "cannot read {path}: {why}"),
    "dice.not_utf8": ("{path} 不是 UTF-8 文本", "{path}: not UTF-8 text"),
    "dice.bad_json": ("{path} 不是有效的 JSON：{why}", "{path}: {why}"),
    "dice.too_long": (
        "{path} 第 {n} 行太长（最多 {max} 个字符）",
        "{path}:{n}: longer than {max} characters",
    ),
    "dice.empty": ("{path} 里没有事件（空记录）", "{path}: no events (an empty log)"),
    "dice.no_hand": ("记录里没有这一局：{hand}", "no hand {hand} in the store"),
    "dice.no_input": ("请给一个记录文件，或 --hand 局号", "give a log file or --hand ID"),
    "request.not_json": ("提交的内容不是有效的 JSON", "request body: not JSON"),
}

FIELDS: dict[str, str] = {
    "hand": "手牌",
    "melds": "副露",
    "discards": "弃牌",
    "tile": "胡的那张牌",
    "from": "来源（点炮的一家、自摸、抢杠或杠上花）",
    "from_": "来源（点炮的一家、自摸、抢杠或杠上花）",
    "flags": "胡牌方式",
    "claimed": "吃碰杠的那张牌",
    "tiles": "牌",
    "type": "副露的种类",
    "indicator": "翻出的精牌",
    "xia_indicator": "下精",
    "an_indicator": "暗精",
    "held": "自己的牌",
    "robbed_from": "被抢的碰来自哪一家",
    "reason": "原因",
    "points": "分数",
    "from_seat": "出分的一家",
    "to_seat": "得分的一家",
    "penalty": "罚则",
    "seat": "座位",
    "hand_id": "局号",
    "seen": "牌局进度",
    "result": "结果",
    "winners": "胡牌的一家",
    "seats": "各家的牌",
    "win": "胡牌",
    "tian": "天胡",
    "di": "地胡",
    "name": "名字",
    "password": "密码",
    "member_id": "会员",
    "amount": "罚分",
    "net": "输赢",
    "session": "本场",
    "undo": "撤销",
    "Idempotency-Key": "提交编号",
    "since": "开始时间",
    "until": "结束时间",
    "limit": "条数",
    "session_id": "场次",
    "table_id": "桌号",
    "false_win_amount": "诈胡罚分",
    "xianggong_amount": "相公罚分",
    "may_void": "允许作废",
    "may_adjust": "允许调分",
    "point_value": "每分金额",
    "table_fee": "台费",
    "cutoff": "每日结算时间",
    "display_name": "名字",
    "phone": "电话",
    "request": "提交的内容",
    "input": "提交的内容",
    "by": "操作人",
    "role": "身份",
    "at": "时间",
    "partial": "只录精和杠",
    "kongs": "杠",
    "extra": "附加项",
    "mai": "买",
    "guan_fengxiang": "关风向",
    "false_win": "诈胡",
    "prevailing_wind": "圈风",
    "jing": "精",
}

VALUES: dict[str, str] = {
    "chow": "吃",
    "pung": "碰",
    "kong_exposed": "明杠",
    "kong_concealed": "暗杠",
    "kong_added": "加杠",
    "tian": "天胡",
    "di": "地胡",
    "last_tile": "海底",
    "pao_long": "跑龙",
    "false_win": "诈胡",
    "xianggong": "相公",
    "exhausted": "流局",
    "self": "自摸",
    "rob_kong": "抢杠",
    "kong_replacement": "杠上花",
}

_AGAIN = "页面已是最新情况，请看清后再操作"
_SEE = "（撤销那一步才能改）"

# (pattern, zh). Ordered: the first match words the message.
MESSAGES: list[tuple[str, str]] = [
    # the table loop's refusals (controller/table/staff_acts.py, hand_keeper.py, seating.py)
    (
        r"no hand in progress: act when the next hand has started",
        "现在没有进行中的一局：等下一局开始再操作",
    ),
    (
        r"hand (?P<id>.+) is not the hand in progress \(.*\)",
        "局号 {id} 不是正在进行的这一局：" + _AGAIN,
    ),
    (r"the session is closed and cashed out: .*", "本场已结束并结账：等下一局开始再操作"),
    (
        r"seen: the hand (in progress )?holds \d+ events.*",
        "这一局刚有变化（有人刚操作过，或这次提交已发过）：" + _AGAIN,
    ),
    (r"the table moved on .*", "牌桌已经往下进行了：" + _AGAIN),
    (r"no hand (?P<id>.+) at this table", "本台没有局号 {id}"),
    (r"hand (?P<id>.+) is no finished hand of this session", "局号 {id} 不是本场打完的一局"),
    (r"hand (?P<id>.+) is voided already", "局号 {id} 已经作废"),
    (r"hand (?P<id>.+) has no settlement.*", "局号 {id} 还没有结算"),
    (r"no roll is due \(or the hand waits for staff\)", "现在不该掷骰子（或本局在等工作人员处理）"),
    (
        r"(hand: )?a hand is in progress[:;] finish or void it, then close.*",
        "本局还在进行：先结束或作废本局，再结束本场",
    ),
    (
        r"the owners do not let staff void hands.*",
        "老板没有允许工作人员作废牌局（员工权限：允许作废）",
    ),
    (
        r"the owners do not let staff adjust points.*",
        "老板没有允许工作人员调分（员工权限：允许调分）",
    ),
    (
        r"Idempotency-Key: already used for another request.*",
        "这个提交编号已用于别的操作：请重新提交",
    ),
    (r"a hand is in progress: seats change between hands", "本局进行中：换座请在两局之间"),
    (r"no member (?P<id>.+)", "没有这位会员（{id}）"),
    (r"the member is deactivated", "这位会员已停用"),
    (r"(?P<name>.+) is not staff of table (?P<table>.+)", "{name} 不是 {table} 桌的工作人员"),
    (r"the hub plays no hand: act at the table", "总台不打牌：请到牌桌上操作"),
    (r"no hand finished at this table yet", "本台还没有打完的牌局"),
    (r"no loss of the store to acknowledge", "记录没有丢失，无需确认"),
    (
        r"the table did not take the act; nothing was done, try again",
        "牌桌没有接收这次操作，什么都没有改变：请再试一次",
    ),
    (r"log in first: .*", "请先登录"),
    (r"an owner's route: staff may not", "这是老板的功能，工作人员不能使用"),
    (r"wrong name or password", "名字或密码不对"),
    (r"too many failed logins .*; try again in (?P<n>\d+) s", "登录失败次数太多：请 {n} 秒后再试"),
    (r"too many logins at once.*", "同时登录的人太多：请几秒后再试"),
    (r"no live table here: .*", "这里没有运行中的牌桌：请到牌桌上操作"),
    (r"session: closed already.*", "本场已结束：下一局会开始新的一场"),
    (r"session: no hand played in it yet.*", "本场还没打过牌，没有可结账的"),
    (r"undo: that would reopen a closed hand.*", "撤销会重新打开已结束的一局：请改用更正或作废"),
    (r"hand: no hand in progress", "现在没有进行中的一局"),
    (r"hand: settled already.*", "本局已经结算：可以更正胡牌，或作废本局"),
    (r"hand: voided( already)?", "本局已经作废"),
    (r"hand: not an earlier hand of this session.*", "这不是本场之前打完的一局"),
    (r"undo: no act of staff in this hand", "本局没有工作人员的操作可以撤销"),
    # the owners' and members' routes
    (r"(?P<field>\w+): not a usable time: .*", "{field}不是可用的时间"),
    (r"until: must not be before since", "结束时间不能早于开始时间"),
    (r"unknown table (?P<id>.+)", "没有这张桌（{id}）"),
    (r"unknown hand (?P<id>.+)", "没有这一局（{id}）"),
    (r"unknown session (?P<id>.+)", "没有这一场（{id}）"),
    (r"(?P<name>.+) may not make links here", "{name} 不能在这里关联记录"),
    (r"no such link", "没有这条关联"),
    (r"the owners have not switched leaderboards on", "老板还没有开启排行榜"),
    (
        r"at most (?P<n>\d+) live streams; try again later",
        "看直播的人太多（最多 {n} 个）：请稍后再试",
    ),
    (r"at most (?P<n>\d+) live streams per client", "这台设备打开的直播太多（最多 {n} 个）"),
    (r"Not Found", "没有这个地址"),
    (r"Method Not Allowed", "这个地址不接受这种请求"),
    (
        r"refused: sent from another site's page.*",
        "已拒绝：这个请求来自别的网站，只有本站的页面能改动",
    ),
    (r"request body: at most (?P<n>\d+) bytes here", "提交的内容太长（这里最多 {n} 字节）"),
    # an act's own checks (engine/round/staff.py, commands.py)
    (
        r"penalty: (?P<ruleset>\w+) has no (?P<penalty>\w+) amount; the owner sets one",
        "{ruleset}没有{penalty}的罚分：请老板先在员工权限里设定罚分",
    ),
    (r"false_win \(诈胡\) or xianggong \(相公\)", "罚则只有诈胡或相公"),
    (r"1–(?P<n>\d+)( points)?", "须在 1 到 {n} 分之间"),
    (r"the same seat as from_seat", "出分和得分不能是同一家"),
    (r"seat (?P<seat>\d) declared no win in this hand", "{seat}本局没有胡牌"),
    (r"(?P<ruleset>\w+) turns up no tile", "{ruleset}不翻精牌"),
    (r"the readers saw the flip; it is not entered by hand", "感应器已看到翻出的牌，不用手动填写"),
    (r"the readers saw the 下精; it is not entered by hand", "感应器已看到下精，不用手动填写"),
    (r"entered as (?P<tile>\S+) already.*", "已经填为 {tile}" + _SEE),
    (r"one tile, e\.g\. .*", "填一张牌，例如 5s 或 E"),
    (r"seat (?P<seat>\d) is (listed|given) twice", "{seat}填了两次"),
    (r"at most 3", "最多三家胡牌"),
    (r"required for this act", "这一步要写明原因"),
    (r"at most (?P<n>\d+) characters", "最多 {n} 个字"),
    (r"a seat is 0–3", "座位只有1号位到4号位"),
    (r"tiles in notation, e\.g\. .*", "用牌的写法填，例如 123m456p"),
    (r"required", "没有填"),
    (r".+: unknown field", "提交的内容里有一项不认识"),
    (r"unknown field", "这一项不认识"),
    (r"a list of .*", "只能是天胡、地胡、海底、跑龙"),
    (r"a seat, self, rob_kong:<seat> or kong_replacement", "只能是点炮的一家、自摸、抢杠或杠上花"),
    (r"expected .*|a meld has a type and its tiles|a list of melds", "填写的格式不对"),
    # the settlement's checks (engine/settlement, engine/rulesets)
    (
        r"(?P<n>\d+) tiles counting melds, a winner holds 14 \((?P<which>.*)\)",
        "连副露共 {n} 张，胡牌的一家应有 14 张（{which}）",
    ),
    (
        r"(?P<n>\d+) tiles counting melds, a seat holds 13 \((?P<which>.*)\)",
        "连副露共 {n} 张，应有 13 张（{which}）",
    ),
    (
        r"the winning tile (?P<tile>\S+) is not in seats\[(?P<seat>\d)\]\.hand",
        "胡的那张 {tile} 不在{seat}的手牌里",
    ),
    (
        r"(?P<n>\d+) tiles of (?P<tile>\S+) on the table, there are only 4",
        "桌上填了 {n} 张 {tile}，一种牌只有 4 张",
    ),
    (r"a seat is listed twice", "同一家填了两次"),
    (
        r"several winners must all win on a discard, or all rob the same kong",
        "一炮多响：几家须胡同一张打出的牌，或抢同一个杠",
    ),
    (r"several winners must win on the same tile", "一炮多响：几家须胡同一张牌"),
    (
        r"a chow is claimed from the 上家 \(seat (?P<seat>\d)\), not seat (?P<seat_2>\d)",
        "吃只能吃上家（{seat}）的牌，不是{seat_2}的",
    ),
    (r"a (?P<meld>\w+) is claimed from another seat", "{meld}的牌要来自别家"),
    (r"a concealed kong is claimed from nobody", "暗杠不来自别家"),
    (r"a (?P<meld>\w+) needs the seat it came from", "{meld}要填来自哪一家"),
    (r"(?P<tile>\S+) is not in (?P<tiles>\S+)", "{tile} 不在 {tiles} 里"),
    (r"a win is 天胡 or 地胡, not both", "天胡和地胡只能选一个"),
    (r"天胡 is the dealer's win \(seat (?P<seat>\d)\)", "天胡只有庄家（{seat}）能胡"),
    (r"天胡 is won on the dealt tiles.*", "天胡是起手自摸"),
    (r"地胡 is a non-dealer's win; seat (?P<seat>\d) deals", "地胡是闲家的胡，{seat}是庄家"),
    (r"地胡 .*", "地胡只能胡第一次摸的牌，或庄家打出的第一张"),
    (
        r"rob_kong:(?P<seat>\d), but seats\[\d\] has no pung of (?P<tile>\S+) .*",
        "抢杠：{seat}没有 {tile} 的碰可以加杠",
    ),
    (r"kong_replacement, but seats\[(?P<seat>\d)\]\.melds hold no kong", "杠上花：{seat}没有杠"),
    (
        r".+ is not a seat, 'self', 'rob_kong:<seat>' or 'kong_replacement'",
        "只能是点炮的一家、自摸、抢杠或杠上花",
    ),
    (r"(?P<seat>\d) is not another seat", "点炮的要是别家，不能是{seat}自己"),
    (
        r"(?P<claims>\d+) chi/pung, chongji allows (?P<limit>\d+) a hand",
        "吃碰了 {claims} 次，冲击麻将每局最多 {limit} 次",
    ),
    (r"关风向 needs a win on a discard", "关风向要胡别家打出的牌"),
    (r"required by (?P<ruleset>\w+) \(the flipped tile.*", "{ruleset}要填翻出的精牌"),
    (r"required by (?P<ruleset>\w+) \(the 暗精.*", "{ruleset}要填暗精（翻开那一墩的另一张）"),
    (r"required by (?P<ruleset>\w+) \(the 下精.*", "{ruleset}要填下精（本局结束时翻出的牌）"),
    (r"chongji needs the turned-up tile.*", "冲击麻将要填翻出的牌（财神是它的下一张）"),
    (r"this ruleset has no 诈胡 penalty.*", "这个玩法没有诈胡罚分"),
    (r"买 is off in this preset.*", "这个玩法没有开买"),
    (r"not a tile: (?P<token>.+?)( \(.*\))?", "{token} 不是一张牌（牌的写法例如 123m456p、E、C）"),
    (r"not a tile \((?P<token>.+)\)", "{token} 不是一张牌（牌的写法例如 123m456p、E、C）"),
    (r"expected exactly one tile, got .*", "只填一张牌，例如 5s 或 E"),
    (r"(?P<what>[^:]+) is not a wind", "{what} 不是风（东南西北）"),
    # mjtable verify-dice's problems and notes (controller/table/dice.py)
    (r"(?P<n>\d+) commitments in one hand", "一局里有 {n} 个承诺"),
    (r"the commitment is logged after (?P<what>.+)", "承诺记在了 {what} 之后"),
    (
        r"the seed was drawn with the walls already up.*",
        "种子是在牌墙已经砌好后才抽的：它证明不了这副牌墙",
    ),
    (
        r"the commitment names (?P<key>\w+) (?P<mine>.+), the log (?P<theirs>.+)",
        "承诺写的 {key} 是 {mine}，记录里是 {theirs}",
    ),
    (r"(?P<n>\d+) seeds revealed in one hand", "一局里公布了 {n} 个种子"),
    (
        r"the revealed seed is not the seed stored with the commitment",
        "公布的种子和承诺时存下的种子不一样",
    ),
    (r"the seed is not published yet.*", "种子还没有公布（本局还没结算）：用存下的种子核对"),
    (
        r"roll (?P<n>\d+) \((?P<why>\w+), seat (?P<seat>\d)\): logged (?P<got>\S+), "
        r"the seed gives (?P<want>\S+)",
        "第 {n} 次掷骰（{why}，{seat}）：记录是 {got}，种子算出的是 {want}",
    ),
    (r"give \"winners\", or \"result\": \"exhausted\".*", "请填胡牌的一家，或选流局，二者选一"),
    (r"the winner's tiles: give \"seat\" and \"hand\"", "更正胡家的牌：要填座位和手牌"),
    (r"the winner's tiles \(.*\) or a whole result .*", "更正胡家的牌或重录整局，二者选一"),
    (r"hand: no result entered by hand to correct", "本局没有手动录入的结果可以这样更正"),
    # the rest an act's own checks and the table loop can raise (tests/controller/
    # test_words_coverage.py finds each in the source)
    (r"an account name of 1–(?P<n>\d+) characters", "操作人的名字要 1 到 {n} 个字"),
    (r".+ is not staff, owner or player", "身份只能是工作人员、老板或玩家"),
    (r"the time of the act is required", "要写明操作的时间"),
    (r"true or false", "只能是“是”或“否”"),
    (r"at most four of .*|at most four kongs, by type", "最多四个杠"),
    (r"only a partial seat gives its kongs by type", "只有只录精和杠的一家才按种类填杠"),
    (r"Field required", "没有填"),
    (r"not an act of staff: .*", "这不是工作人员能做的操作"),
    (r"four seats", "要填四家的输赢"),
    (r"no table here to seat anyone at", "这里没有牌桌可以入座"),
]

PATTERNS: list[tuple[re.Pattern[str], str]] = [
    (re.compile(p), zh) for p, zh in [*MESSAGES, *HOUSE_MESSAGES]
]
