"""House rulesets: a built-in preset with an owner's option values, in the owners' words."""
