import warnings

# Starlette's TestClient says httpx will be replaced; it works, and the tests pin nothing there.
warnings.filterwarnings("ignore", message="Using `httpx` with `starlette.testclient`")
