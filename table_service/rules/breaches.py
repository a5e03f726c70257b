"""The breaches the Jiangsu rules name, as the article a referee cites when giving a penalty.

Why a list: most breaches have no sensor (hiding a card, passing information, a wrong drawing); the
referee gives them from the panel with an article, and under time pressure taps one of these rather
than typing it. Each is "中文 / English", as every article in the log (the panel shows the half of
the referee's language). The breaches the engine flags by itself carry their own article
(``engine.flags``); these are the rules' list ("Named breaches include …") and its penalties' grounds.
"""

from __future__ import annotations

#: In the order a referee meets them at a table.
NAMED_BREACHES: tuple[str, ...] = (
    "出错牌 / wrong play (does not beat, or not a pattern)",
    "越序出牌 / playing out of turn",
    "暴露张 / exposed card",
    "拖延时间 / delaying play",
    "抓牌错误 / wrong drawing",
    "牌数错误 / wrong card count",
    "进贡还贡错误 / wrong tribute or return",
    "藏牌、夹带 / hiding or slipping cards",
    "传递违规信息 / passing illegal information",
    "违反体育道德 / unsportsmanlike conduct",
)
