"""Everything shown in a terminal: cards, activity lines, `/mcp`, `/context`; all wording and all
sanitizing of third-party text. Imports agent, platform, core and mcp's plain data (gates, config) only."""
