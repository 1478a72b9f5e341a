"""docs/roles/tool-author.md: implement the scaffolded `lookup` tool (run by tests/test_docs_examples.py
after `contractgen init lookup && contractgen build`)."""

from generated import lookup_v1 as contract

RECORDS = {"rec_123": "hello"}


@contract.lookup.implement
def lookup(arguments: contract.LookupV1Input) -> contract.LookupV1Output:
    if arguments.id not in RECORDS:
        raise contract.RecordNotFound()  # the declared NOT_FOUND error, with its message and action
    return contract.LookupV1Output(id=arguments.id, value=RECORDS[arguments.id])


print(lookup({"id": "rec_123"})["output"])
print(lookup({"id": "rec_999"})["error"]["code"])
print(lookup({"id": 123})["error"]["field"])
# {'id': 'rec_123', 'value': 'hello'}
# NOT_FOUND
# /id
