"""Scenario tests: one module per area of RULES.md, each test citing its rule id."""
