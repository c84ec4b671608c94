"""What the tests share: servers and clients to run, data to build, results to read back.

Each module is one concept, named after it; a test module imports from here and never from another
test module (``tests/test_quality.py`` holds that). ``conftest.py`` has pytest rewrite the asserts
of these modules as it does a test's, so a failing helper shows its values too.
"""
