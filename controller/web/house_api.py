"""The owners' house rules (docs/house-rules.md): the form of a built-in preset, house
rulesets saved under a name, a preview of three sample hands under the old and the new
values, assignment to tables and the audit of both. Owners only. A table assigns only to
itself; the hub to any table it knows (one, several, all)."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import APIRouter, Depends, HTTPException, Path
from fastapi.responses import Response
from pydantic import BaseModel, ConfigDict, Field

from controller.house.labels import GROUPS
from controller.house.options import HouseRulesError, catalog, check_house, preset_toml
from controller.house.preview import preview
from controller.process.software import behind, software_version
from controller.store.house_rules import HouseRules, UnknownHouseRuleset, check_house_name
from controller.store.owners import OwnerRecord
from controller.store.tables import TableRecord, last_rulesets, list_tables
from controller.web.auth import current_owner
from controller.web.context import WebContext, context, own_table
from controller.web.routes import ApiRoute
from controller.web.schemas import WITH_BODY, Problem
from controller.words import Words
from controller.words.refusals import ruleset_name
from engine.rulesets import builtin_ids, load_ruleset

router = APIRouter(
    route_class=ApiRoute,
    prefix="/api/v1/house",
    tags=["owners"],
    responses={
        401: {"model": Problem},
        403: {"model": Problem},
        404: {"model": Problem},
        422: {"model": Problem},
    },
)
Ctx = Annotated[WebContext, Depends(context)]
Owner = Annotated[OwnerRecord, Depends(current_owner)]
Name = Annotated[str, Path(min_length=1, max_length=64)]
MAX_TABLES = 256


class RulesIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    base: str = Field(max_length=64, description="A built-in ruleset (mjtable rules list)")
    options: dict[str, Any] = Field(description='Option values: {"win.deguo_bonus": 10}')
    expected_version: int | None = Field(
        default=None, ge=0, description="The version edited (0: a new one); a newer is refused"
    )


class PreviewIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    base: str = Field(max_length=64)
    old: dict[str, Any]
    new: dict[str, Any]


class AssignIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str = Field(min_length=1, max_length=64)
    tables: list[str] | Literal["all"] = Field(description='Table ids, or "all" (the hub)')
    from_next_hand: bool = Field(
        default=False, description="From the table's next hand, not its next session"
    )


def _known(ctx: WebContext) -> list[TableRecord]:
    return [t for t in list_tables(ctx.store, default_table=None) if t.table_id]


def _rules(ctx: WebContext) -> HouseRules:
    return HouseRules(ctx.store)


def _checked(base: str, options: dict[str, Any]) -> dict[str, Any]:
    try:
        return check_house(base, options)
    except HouseRulesError as err:
        raise HTTPException(422, Words(str(err), err.en)) from None


@router.get("/builtins", summary="The built-in rulesets a house ruleset starts from")
def builtins(_owner: Owner) -> list[dict[str, str]]:
    out = []
    for ruleset_id in builtin_ids():
        preset = load_ruleset(ruleset_id).preset
        out.append({"id": ruleset_id, "name": preset.name, "description": preset.description})
    return out


@router.get("/form/{base}", summary="Every option of a built-in ruleset, in the owners' words")
def form(base: Annotated[str, Path(max_length=64)], _owner: Owner) -> dict[str, Any]:
    if base not in builtin_ids():
        raise HTTPException(404, f"没有这个内置规则：{base}")
    return {
        "base": base,
        "name": load_ruleset(base).preset.name,
        "groups": GROUPS,
        "options": [o.as_dict() for o in catalog(base)],
    }


@router.get("/rulesets", summary="The house rulesets")
def rulesets(_owner: Owner, ctx: Ctx) -> list[dict[str, Any]]:
    return [r.as_dict() for r in _rules(ctx).all()]


@router.get("/rulesets/{name}", summary="One house ruleset")
def one(name: Name, _owner: Owner, ctx: Ctx) -> dict[str, Any]:
    found = _rules(ctx).get(name)
    if found is None:
        raise HTTPException(404, f"没有这个店规：{name}")
    return found.as_dict()


@router.put("/saves/{name}", responses=WITH_BODY, summary="Save a house ruleset (its next version)")
def save(name: Name, body: RulesIn, owner: Owner, ctx: Ctx) -> dict[str, Any]:
    check_house_name(name)
    _checked(body.base, body.options)  # (the refusal in words, the engine's beside it)
    saved = _rules(ctx).save(
        name, body.base, body.options, owner.name, expected_version=body.expected_version
    )
    return saved.as_dict()


@router.get(
    "/rulesets/{name}/preset.toml",
    summary="The house ruleset as a preset file (mjtable rules check, settle --preset)",
)
def preset_file(name: Name, _owner: Owner, ctx: Ctx) -> Response:
    found = _rules(ctx).get(name)
    if found is None:
        raise HTTPException(404, f"没有这个店规：{name}")
    return Response(
        preset_toml(found.base, found.options, found.name), media_type="text/plain; charset=utf-8"
    )


@router.post(
    "/preview",
    responses=WITH_BODY,
    summary="Three sample hands settled under the old and the new values",
)
def preview_hands(body: PreviewIn, _owner: Owner) -> list[dict[str, Any]]:
    old, new = _checked(body.base, body.old), _checked(body.base, body.new)
    return preview(body.base, old, new)


@router.get("/assignments", summary="Which table plays which house ruleset")
def assignments(_owner: Owner, ctx: Ctx) -> list[dict[str, Any]]:
    mine = own_table(ctx)
    found = _rules(ctx).assignments()
    return [a.as_dict() for a in found if mine is None or a.table_id == mine]


@router.post("/assign", responses=WITH_BODY, summary="Assign a house ruleset to tables")
def assign(body: AssignIn, owner: Owner, ctx: Ctx) -> list[dict[str, Any]]:
    mine = own_table(ctx)
    known = [t.table_id for t in _known(ctx)]
    if mine is not None:
        known = [mine]  # a table's own page assigns to itself only
    tables = known if body.tables == "all" else body.tables
    if not tables or len(tables) > MAX_TABLES:
        raise HTTPException(422, f"请选择 1-{MAX_TABLES} 张牌桌")
    strangers = [t for t in tables if t not in known]
    if strangers:
        raise HTTPException(422, f"不认识的牌桌：{'、'.join(strangers[:5])}")
    rules = _rules(ctx)
    try:
        return [
            rules.assign(t, body.name, owner.name, from_next_hand=body.from_next_hand).as_dict()
            for t in tables
        ]
    except UnknownHouseRuleset:
        raise HTTPException(404, f"没有这个店规：{body.name}") from None


@router.get("/tables", summary="Each table's house ruleset and the software it runs")
def tables(_owner: Owner, ctx: Ctx) -> dict[str, Any]:
    """``behind``: a table runs an older mjtable than the one serving this page (the hub's)."""
    mine = own_table(ctx)
    here = software_version()
    names = [mine] if mine is not None else [t.table_id for t in _known(ctx)]
    found = {a.table_id: a for a in _rules(ctx).assignments()}
    own = last_rulesets(ctx.store, [t for t in names if t not in found])
    out = []
    for table in names:
        software = here if table == mine else None
        if ctx.table_software is not None:
            software = ctx.table_software(table)
        assigned = found.get(table)
        out.append(
            {
                "table_id": table,
                "house": None if assigned is None else assigned.name,
                "version": None if assigned is None else assigned.version,
                "applied_version": None if assigned is None else assigned.applied_version,
                "problem": None if assigned is None else assigned.problem,
                # a table with no house ruleset: table.toml's, said by its name
                "own_ruleset": ruleset_name(own[table]) if table in own else None,
                "software": software,
                "behind": behind(software, here),
            }
        )
    return {"software": here, "tables": out}


@router.get("/audit", summary="Every save and assignment: who, when, the values before and after")
def audit(_owner: Owner, ctx: Ctx) -> list[dict[str, Any]]:
    return [e.as_dict() for e in _rules(ctx).audit()]
