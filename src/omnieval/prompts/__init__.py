"""omnieval.prompts"""
