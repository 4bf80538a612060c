"""The table loop's answer to a web request, and its refusals as HTTP in words: one mapping
for every route that hands the loop a request (the staff's acts, the players' phones, a
seat taken)."""

from __future__ import annotations

import asyncio
from typing import Any

from fastapi import HTTPException, status

from controller.store.members import MemberInputError, UnknownMember
from controller.store.request_keys import KeyReused
from controller.table.staff_acts import NotPermitted, StaleRequest, UnknownHandId
from controller.table.staff_requests import Keyed, Request
from controller.web.context import WebContext
from controller.words import Places, refusal, say
from engine.round.commands import StaffInputError

ANSWER_WAIT = 10.0  # seconds for the table loop to take an act (it takes each at once)


async def ask_table(
    ctx: WebContext, item: Request | Keyed, places: Places | None = None
) -> dict[str, Any]:
    """Hand ``item`` to the table loop and wait for what it did; a refusal is a 4xx in
    words (``places``: the seats the request's lists name), nothing done."""
    if ctx.staff_desk is None:
        raise HTTPException(status.HTTP_403_FORBIDDEN, say("staff.no_live_table"))
    try:
        return await asyncio.wait_for(ctx.staff_desk(item), ANSWER_WAIT)
    except (KeyReused, StaffInputError, MemberInputError) as err:
        raise HTTPException(422, refusal(str(err), places)) from None
    except StaleRequest as err:
        raise HTTPException(status.HTTP_409_CONFLICT, refusal(str(err))) from None
    except NotPermitted as err:
        raise HTTPException(status.HTTP_403_FORBIDDEN, refusal(str(err))) from None
    except (UnknownHandId, UnknownMember) as err:
        raise HTTPException(status.HTTP_404_NOT_FOUND, refusal(str(err))) from None
    except (TimeoutError, OverflowError):  # (the loop busy or gone; a full queue)
        raise HTTPException(
            status.HTTP_503_SERVICE_UNAVAILABLE,
            say("staff.not_taken"),
            headers={"Retry-After": "2"},
        ) from None
