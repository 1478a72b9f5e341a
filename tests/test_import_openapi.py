"""`contractgen import` on OpenAPI 3.0 and 3.1 documents (tests/cases/import_openapi, real documents from
public projects, see the README there): one manifest per operation that passes `check` and `build`, the
HTTP mapping recorded, every conversion and refusal located in the document. Runs the real CLI."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from conftest import ROOT, run_cli

from contractgen.manifest.parse import parse_manifest_text
from contractgen.runtime.jsonvalue import MISSING
from contractgen.runtime.pointer import resolve_pointer

CASES = ROOT / "tests" / "cases" / "import_openapi"
PETSTORE = CASES / "petstore-expanded.yaml"  # 3.0, OAI example
MUSEUM = CASES / "museum.yaml"  # 3.1, Redocly
SWAGGER = CASES / "swagger-petstore-v3.yaml"  # 3.0, swagger-api
SPEC = CASES / "spec-examples.yaml"  # 3.0, the specification's example fragments


def _import(tmp_path: Path, source: Path | str, *extra: str) -> tuple[Any, dict[str, Any]]:
    tmp_path.mkdir(parents=True, exist_ok=True)
    result = run_cli("import", str(source), "--out", str(tmp_path / "contracts"), "--format", "json", *extra,
                     cwd=tmp_path)
    return result, json.loads(result.stdout)


def _manifest(tmp_path: Path, name: str) -> dict[str, Any]:
    [path] = (tmp_path / "contracts" / name).glob("*.yaml")
    parsed = parse_manifest_text(str(path), path.read_bytes())
    assert not parsed.diagnostics, parsed.diagnostics
    value: dict[str, Any] = parsed.value
    return value


def _document(path: Path) -> Any:
    return parse_manifest_text(str(path), path.read_bytes()).value


@pytest.mark.parametrize(("source", "selection", "names"), [
    (PETSTORE, (), {"addPet", "deletePet", "findPets", "find_pet_by_id"}),
    (MUSEUM, ("--tag", "Events", "--tag", "Tickets"),
     {"buyMuseumTickets", "createSpecialEvent", "deleteSpecialEvent", "getSpecialEvent", "getTicketCode"}),
    (SWAGGER, ("--version", "1.0.26"),
     {"deletePet", "findPetsByStatus", "getOrderById", "getPetById", "placeOrder", "updatePetWithForm"}),
    (SPEC, (), {"addPet", "createUser", "getUser"}),
], ids=["petstore-3.0", "museum-3.1", "swagger-petstore-3.0", "spec-examples-3.0"])
def test_documents_import_and_pass_check_and_build(tmp_path: Path, source: Path, selection: tuple[str, ...],
                                                   names: set[str]) -> None:
    result, report = _import(tmp_path, source, *selection)
    assert result.returncode == 0, result.stderr + result.stdout
    assert {tool["name"] for tool in report["imported"]} == names
    document = _document(source)
    for note in report["conversions"]:  # every conversion is placed in the document, with its line
        assert note["file"] == str(source) and note["line"] is not None, note
        assert resolve_pointer(document, note["pointer"]) is not MISSING, note
    check = run_cli("check", str(tmp_path / "contracts"), cwd=tmp_path)
    assert check.returncode == 0, check.stderr
    build = run_cli("build", "--contracts", str(tmp_path / "contracts"), "--output", str(tmp_path / "generated"),
                    "--no-cache", cwd=tmp_path)
    assert build.returncode == 0, build.stderr
    modules = {p.stem for p in (tmp_path / "generated").glob("*_v*.py")}
    assert len(modules) == len(names), modules


def test_parameters_of_every_location_and_the_body_are_one_input_with_the_mapping_recorded(tmp_path: Path) -> None:
    result, _ = _import(tmp_path, SPEC)
    assert result.returncode == 0, result.stderr
    get_user = _manifest(tmp_path, "getUser")
    assert get_user["x-openapi"]["parameters"] == [
        {"argument": "username", "in": "path", "name": "username"},
        {"argument": "token", "in": "header", "name": "token"},
        {"argument": "session", "in": "cookie", "name": "session"},
        {"argument": "coordinates", "in": "query", "name": "coordinates"},
    ]
    assert get_user["x-openapi"]["method"] == "GET" and get_user["x-openapi"]["path"] == "/users/{username}"
    assert get_user["input"]["required"] == ["username", "token"]
    assert get_user["input"]["additionalProperties"] is False
    # a parameter given as content (application/json) keeps its schema
    assert get_user["input"]["properties"]["coordinates"]["required"] == ["lat", "long"]
    # a plain object body is read as arguments beside the parameters; readOnly id is not an argument
    create = _manifest(tmp_path, "createUser")
    assert create["x-openapi"]["body"] == {"properties": ["id", "username", "password", "nickname", "age"],
                                           "media_type": "application/json"}
    assert set(create["input"]["properties"]) == {"username", "password", "nickname", "age"}
    assert create["input"]["required"] == ["username", "password"]
    # ... and the result has no writeOnly password, and keeps id
    assert set(create["output"]["properties"]) == {"id", "username", "nickname", "age"}
    assert create["output"]["required"] == ["id", "username"]
    # a oneOf body is one argument
    add = _manifest(tmp_path, "addPet")
    assert add["x-openapi"]["body"] == {"argument": "body", "media_type": "application/json"}
    branches = add["input"]["properties"]["body"]["oneOf"]
    assert [sorted(b["allOf"][0]["allOf"][1]["properties"]) for b in branches] == [["name"], ["bark"], ["lovesRocks"]]
    # the discriminator's values tell the open branches apart, as it did in the document
    assert [b["allOf"][1] for b in branches] == [
        {"properties": {"petType": {"const": tag}}, "required": ["petType"]} for tag in ("Cat", "Dog", "Lizard")]
    assert add["input"]["required"] == ["body"]


def test_openapi_3_0_keywords_become_2020_12_and_each_is_listed(tmp_path: Path) -> None:
    result, report = _import(tmp_path, SPEC)
    assert result.returncode == 0, result.stderr
    user = _manifest(tmp_path, "getUser")["output"]["properties"]
    assert user["nickname"]["type"] == ["string", "null"]
    assert user["age"] == {"type": "integer", "exclusiveMinimum": 0}
    listed = {(c["code"], c["pointer"]) for c in report["conversions"]}
    assert ("nullable", "/components/schemas/User/properties/nickname/nullable") in listed
    assert ("exclusive-bound", "/components/schemas/User/properties/age/exclusiveMinimum") in listed
    assert ("openapi-readonly", "/components/schemas/User/properties/id/readOnly") in listed
    assert ("openapi-writeonly", "/components/schemas/User/properties/password/writeOnly") in listed
    assert ("openapi-discriminator", "/paths/~1pets/post/requestBody/content/application~1json/schema/discriminator") \
        in listed
    lines = {c["pointer"]: c["line"] for c in report["conversions"]}
    text = SPEC.read_text("utf-8").splitlines()
    assert text[lines["/components/schemas/User/properties/nickname/nullable"] - 1].strip() == "nullable: true"


def test_documented_error_responses_become_declared_errors(tmp_path: Path) -> None:
    result, _ = _import(tmp_path, SPEC)
    assert result.returncode == 0, result.stderr
    errors = {e["code"]: e for e in _manifest(tmp_path, "getUser")["errors"]}
    assert errors["NOT_FOUND"]["description"] == "HTTP 404: no user by that name"
    assert errors["RATE_LIMITED"]["description"] == "HTTP 429: too many requests; see Retry-After"
    assert "retry_after" in errors["RATE_LIMITED"]["message"]
    assert errors["UNAVAILABLE"]["description"] == "HTTP 503: the user store is down"
    assert {"INVALID_ARGUMENT", "INTERNAL", "TIMEOUT"} <= set(errors)  # the defaults stay
    create = {e["code"]: e["description"] for e in _manifest(tmp_path, "createUser")["errors"]}
    assert create["CONFLICT"] == "HTTP 409: that username is taken"
    assert create["INVALID_ARGUMENT"] == "HTTP 422: the user is not valid"
    add = {e["code"]: e["description"] for e in _manifest(tmp_path, "addPet")["errors"]}
    assert add["PERMISSION_DENIED"] == "HTTP 401: sign in first"
    assert add["INVALID_ARGUMENT"] == "HTTP 400: not a pet"
    # a POST is not idempotent: a timeout may have taken effect
    timeout = next(e for e in _manifest(tmp_path, "addPet")["errors"] if e["code"] == "TIMEOUT")
    assert timeout["retryable"] is False


def test_version_is_info_version_when_it_is_semver_else_the_flag(tmp_path: Path) -> None:
    result, report = _import(tmp_path / "a", SPEC)
    assert result.returncode == 0 and all(t["path"].endswith("/2.1.0.yaml") for t in report["imported"])
    result, report = _import(tmp_path / "b", SWAGGER, "--version", "3.0.0")
    assert result.returncode == 0, result.stderr
    assert all(t["path"].endswith("/3.0.0.yaml") for t in report["imported"])
    [warning] = [d for d in report["diagnostics"] if d["code"] == "openapi-version-not-semver"]
    assert warning["pointer"] == "/info/version" and warning["line"] == 7


def test_outputs_that_are_not_objects_are_wrapped_and_other_media_types_stated(tmp_path: Path) -> None:
    result, report = _import(tmp_path, MUSEUM, "--operation", "getTicketCode", "--path", "/special-events")
    assert result.returncode == 0, result.stderr
    assert {t["name"] for t in report["imported"]} == {"getTicketCode", "createSpecialEvent"}
    code = _manifest(tmp_path, "getTicketCode")
    assert code["x-openapi"]["response"] == {"status": "200", "media_type": "image/png", "encoding": "base64"}
    assert code["output"]["required"] == ["content"]
    result, _ = _import(tmp_path / "p", PETSTORE, "--operation", "findPets")
    found = _manifest(tmp_path / "p", "findPets")
    assert found["x-openapi"]["response"]["wrapped_as"] == "result"
    assert found["output"]["properties"]["result"]["type"] == "array"


def test_selection_that_matches_nothing_is_refused(tmp_path: Path) -> None:
    result, report = _import(tmp_path, PETSTORE, "--tag", "nope")
    assert result.returncode == 2, result.stdout
    [problem] = [d for d in report["diagnostics"] if d["level"] == "error"]
    assert problem["code"] == "no-operations" and "--operation" in problem["message"]
    assert not (tmp_path / "contracts").exists()


def test_an_example_that_breaks_its_schema_refuses_the_import_at_its_line(tmp_path: Path) -> None:
    """The museum's MuseumDailyHours.date example is 02-02-2022, not a date: check would refuse it."""
    result, report = _import(tmp_path, MUSEUM)
    assert result.returncode == 2
    [problem] = [d for d in report["diagnostics"] if d["level"] == "error"]
    assert problem["pointer"] == "/components/schemas/MuseumDailyHours/properties/date/example"
    assert MUSEUM.read_text("utf-8").splitlines()[problem["line"] - 1].strip() == "example: 02-02-2022"
    assert not (tmp_path / "contracts").exists()


def test_an_operation_whose_body_is_not_json_is_refused_with_a_hint(tmp_path: Path) -> None:
    result, report = _import(tmp_path, SWAGGER, "--version", "1.0.0")
    assert result.returncode == 0
    [refused] = [d for d in report["diagnostics"] if d["code"] == "openapi-body-media-type"]
    assert "uploadFile" in refused["message"] and "application/octet-stream" in refused["message"]
    assert refused["level"] == "warning" and "--operation" in refused["hint"]
    assert refused["pointer"] == "/paths/~1pet~1{petId}~1uploadImage/post/requestBody/content"


def _write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, "utf-8")
    return path


_SMALL = """\
openapi: 3.1.0
info: {title: t, version: 1.0.0}
paths:
  /things/{id}:
    get:
      operationId: getThing
      parameters:
        - {name: id, in: path, required: true, schema: {type: string}}
      responses:
        '200':
          description: ok
          content:
            application/json:
              schema: {$ref: 'schemas.yaml#/Thing'}
"""


def test_refs_to_local_files_are_read(tmp_path: Path) -> None:
    source = _write(tmp_path / "api" / "openapi.yaml", _SMALL)
    # inside the referenced file, #/... names that file, and a relative path is read from its folder
    _write(tmp_path / "api" / "schemas.yaml", "Thing:\n  type: object\n  required: [id]\n  properties:\n"
                                              "    id: {$ref: '#/Id'}\n    kind: {$ref: 'common/kinds.yaml#/Kind'}\n"
                                              "Id: {type: string, description: its id}\n")
    _write(tmp_path / "api" / "common" / "kinds.yaml", "Kind: {enum: [a, b]}\n")
    result, _ = _import(tmp_path, source)
    assert result.returncode == 0, result.stderr
    output = _manifest(tmp_path, "getThing")["output"]
    assert output["properties"] == {"id": {"type": "string", "description": "its id"}, "kind": {"enum": ["a", "b"]}}


@pytest.mark.parametrize(("document", "code", "pointer", "line"), [
    (_SMALL.replace("schemas.yaml#/Thing", "#/components/schemas/Nope"), "unresolved-ref",
     "/paths/~1things~1{id}/get/responses/200/content/application~1json/schema/$ref", 14),
    (_SMALL.replace("schemas.yaml#/Thing", "#/components/schemas/Tree") + """\
components:
  schemas:
    Tree:
      type: object
      properties:
        children: {type: array, items: {$ref: '#/components/schemas/Tree'}}
""", "recursive-ref", "/components/schemas/Tree/properties/children/items/$ref", 20),
    (_SMALL.replace("in: path", "in: body"), "openapi-invalid", "/paths/~1things~1{id}/get/parameters/0/in", 8),
    ("swagger: '2.0'\ninfo: {title: t, version: '1'}\npaths: {}\n", "openapi-version", "/swagger", 1),
    (_SMALL.replace("schemas.yaml#/Thing", "#/components/schemas/B")
     + "components:\n  schemas:\n    B: {$ref: '#/components/schemas/C'}\n    C: {$ref: '#/components/schemas/B'}\n",
     "ref-cycle", "/components/schemas/B", 17),
    (_SMALL + "  /things/{id}/:\n    get:\n      parameters:\n        - {name: id, in: path, required: true, "
              "schema: {type: string}}\n      responses: {'204': {description: gone}}\n"
              "  /things-{id}:\n    get:\n      parameters:\n        - {name: id, in: path, required: true, "
              "schema: {type: string}}\n      responses: {'204': {description: gone}}\n",
     "duplicate-tool", "/paths/~1things-{id}/get", 22),
], ids=["dangling-ref", "recursive-ref", "invalid-parameter", "swagger-2", "ref-cycle", "derived-names-clash"])
def test_refusals_are_located_and_write_nothing(tmp_path: Path, document: str, code: str, pointer: str,
                                                line: int | None) -> None:
    source = _write(tmp_path / "openapi.yaml", document)
    _write(tmp_path / "schemas.yaml", "Thing: {type: object}\n")
    result, report = _import(tmp_path, source)
    assert result.returncode == 2, result.stdout
    assert "Traceback" not in result.stderr
    errors = [d for d in report["diagnostics"] if d["level"] == "error"]
    assert {d["code"] for d in errors} == {code}, errors
    [located] = [d for d in errors if d["pointer"] == pointer]
    assert located["line"] == line and located["hint"], located
    assert not (tmp_path / "contracts").exists()


_STRUCTURAL = {"openapi-input", "openapi-default-response", "openapi-body-merged", "openapi-body-argument"}


def test_share_of_operations_imported_converted_and_refused(tmp_path: Path) -> None:
    """The closing figures: over the four documents, how many operations import as they are, import
    with conversions, or are refused (printed with -s)."""
    counts = {"operations": 0, "imported": 0, "converted": 0, "refused": 0}
    for index, source in enumerate((PETSTORE, MUSEUM, SWAGGER, SPEC)):
        document = _document(source)
        operations = [(path, method) for path, item in document["paths"].items() for method in item
                      if method in ("get", "put", "post", "delete", "patch", "head", "options", "trace")]
        counts["operations"] += len(operations)
        # one operation at a time, so that one refusal does not hide the others
        for path, method in operations:
            operation = document["paths"][path][method]
            name = operation["operationId"]
            result, report = _import(tmp_path / f"{index}-{name}", source, "--operation", name, "--version", "1.0.0")
            if result.returncode != 0 or not report["imported"]:
                counts["refused"] += 1
                continue
            counts["imported"] += 1
            # beyond the merge every operation gets: a keyword, a media type, a wrapped result ...
            if any(c["code"] not in _STRUCTURAL for c in report["conversions"]):
                counts["converted"] += 1
    print(f"\nOpenAPI operations: {counts}")
    assert counts == {"operations": 20, "imported": 18, "converted": 17, "refused": 2}


def test_an_operation_id_that_is_no_tool_name_is_mapped_with_a_warning_at_its_line(tmp_path: Path) -> None:
    result, report = _import(tmp_path, PETSTORE, "--operation", "find pet by id")
    assert result.returncode == 0, result.stderr
    [warning] = [d for d in report["diagnostics"] if d["code"] == "name-mapped"]
    assert warning["pointer"] == "/paths/~1pets~1{id}/get/operationId"
    assert PETSTORE.read_text("utf-8").splitlines()[warning["line"] - 1].strip() == "operationId: find pet by id"
    assert report["imported"] == [{"source_name": "find pet by id", "name": "find_pet_by_id",
                                   "path": str(tmp_path / "contracts" / "find_pet_by_id" / "1.0.0.yaml")}]


def test_header_parameters_openapi_ignores_are_no_arguments(tmp_path: Path) -> None:
    """Accept, Content-Type and Authorization headers are ignored by the specification; an
    Authorization argument would let the model choose the credentials."""
    document = _SMALL.replace("        - {name: id, in: path, required: true, schema: {type: string}}\n",
                              "        - {name: id, in: path, required: true, schema: {type: string}}\n"
                              "        - {name: Authorization, in: header, required: true, schema: {type: string}}\n")
    source = _write(tmp_path / "openapi.yaml", document)
    _write(tmp_path / "schemas.yaml", "Thing: {type: object}\n")
    result, report = _import(tmp_path, source)
    assert result.returncode == 0, result.stderr
    manifest = _manifest(tmp_path, "getThing")
    assert list(manifest["input"]["properties"]) == ["id"] and manifest["input"]["required"] == ["id"]
    assert [p["name"] for p in manifest["x-openapi"]["parameters"]] == ["id"]
    [note] = [c for c in report["conversions"] if c["code"] == "openapi-ignored-header"]
    assert note["pointer"] == "/paths/~1things~1{id}/get/parameters/1/name" and note["line"] == 9


def test_a_json_document_reads_like_its_yaml(tmp_path: Path) -> None:
    source = tmp_path / "petstore.json"
    source.write_text(json.dumps(_document(PETSTORE), indent=2), "utf-8")
    result, report = _import(tmp_path / "json", source)
    assert result.returncode == 0, result.stderr
    _, from_yaml = _import(tmp_path / "yaml", PETSTORE)
    assert [t["name"] for t in report["imported"]] == [t["name"] for t in from_yaml["imported"]]
    for tool in report["imported"]:
        assert _manifest(tmp_path / "json", tool["name"]) == _manifest(tmp_path / "yaml", tool["name"])
    assert all(c["line"] is not None for c in report["conversions"])


def test_from_openapi_on_another_format_is_a_diagnostic(tmp_path: Path) -> None:
    source = _write(tmp_path / "tools.json", json.dumps([{"name": "x", "inputSchema": {"type": "object"}}]))
    result, report = _import(tmp_path, source, "--from", "openapi")
    assert result.returncode == 2 and "Traceback" not in result.stderr
    [problem] = report["diagnostics"]
    assert problem["code"] == "not-openapi" and "--from" in problem["hint"]


_SIBLINGS = """\
openapi: {version}
info: {{title: t, version: 1.0.0}}
paths:
  /names:
    post:
      operationId: addName
      requestBody:
        required: true
        content:
          application/json:
            schema:
              type: object
              required: [name]
              properties:
                name: {{$ref: '#/components/schemas/Name', maxLength: 10, description: the new name}}
      responses: {{'204': {{description: added}}}}
components:
  schemas:
    Name: {{type: string, minLength: 1}}
"""


def test_keywords_beside_a_ref_apply_in_3_1_and_are_dropped_in_3_0(tmp_path: Path) -> None:
    source = _write(tmp_path / "a" / "openapi.yaml", _SIBLINGS.format(version="3.1.0"))
    result, _ = _import(tmp_path / "a", source)
    assert result.returncode == 0, result.stderr
    name = _manifest(tmp_path / "a", "addName")["input"]["properties"]["name"]
    assert name == {"description": "the new name", "allOf": [{"type": "string", "minLength": 1}, {"maxLength": 10}]}
    source = _write(tmp_path / "b" / "openapi.yaml", _SIBLINGS.format(version="3.0.3"))
    result, report = _import(tmp_path / "b", source)
    assert result.returncode == 0, result.stderr
    name = _manifest(tmp_path / "b", "addName")["input"]["properties"]["name"]
    assert name == {"type": "string", "minLength": 1, "description": "the new name"}
    [note] = [c for c in report["conversions"] if c["code"] == "ref-siblings"]
    assert "maxLength" in note["message"] and note["line"] == 15
