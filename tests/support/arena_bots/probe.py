"""Runs the Python code of each request (JSON {"code": ...}) and answers with the JSON
of its `result` variable: the sandbox tests ask it to try things."""
import json
import sys

for line in sys.stdin:
    scope = {}
    try:
        exec(json.loads(line)["code"], scope)
        result = scope.get("result")
    except BaseException as error:  # noqa: BLE001
        result = {"error": repr(error)}
    print(json.dumps(result), flush=True)
