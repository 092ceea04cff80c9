from __future__ import annotations

from datetime import date

import pytest

from toolweave.language import analyse
from toolweave.language.clauses import split_clauses


@pytest.mark.parametrize(
    ("question", "clauses"),
    [
        (
            "What is 15% of 2,340, and what time is it in Tokyo?",
            ["What is 15% of 2,340", "what time is it in Tokyo?"],
        ),
        ("What is toolweave and how much is 2^10?", ["What is toolweave", "how much is 2^10?"]),
        (
            "Convert 10 miles to km. Then tell me the time in Paris",
            ["Convert 10 miles to km.", "tell me the time in Paris"],
        ),
        (
            "Find flights from Paris to Rome; book a hotel",
            ["Find flights from Paris to Rome", "book a hotel"],
        ),
        ("I need salt and pepper prices", ["I need salt and pepper prices"]),
        (  # a quoted text is one value, whatever it says
            "Translate 'Hello, how are you?' to Spanish and check its grammar",
            ["Translate 'Hello, how are you?' to Spanish", "check its grammar"],
        ),
        (
            "Get a random joke, encrypt the joke with the key 'k', and validate a@b.io",
            ["Get a random joke", "encrypt the joke with the key 'k'", "validate a@b.io"],
        ),
        (
            'in /srv/repo, git add app.py then git commit -m "x"',
            ["in /srv/repo, git add app.py", 'git commit -m "x"'],
        ),
        ("if it rains then tell me", ["if it rains, tell me"]),
        ("What is 1,000,000 divided by 3?", ["What is 1,000,000 divided by 3?"]),
        (
            "What is the distance between Paris and London?",
            ["What is the distance between Paris and London?"],
        ),
        (
            "Book a hotel in Paris and tell me the weather there tomorrow",
            ["Book a hotel in Paris", "tell me the weather in Paris tomorrow"],
        ),
        (
            "Find flights to New York. What's the time over there?",
            ["Find flights to New York.", "What's the time in New York?"],
        ),
        (
            "Book a hotel in Rome and is there a train from the airport?",
            ["Book a hotel in Rome", "is there a train from the airport?"],
        ),
        ("   ", []),
        ("?!", ["?!"]),
    ],
)
def test_split_clauses(question: str, clauses: list[str]) -> None:
    assert split_clauses(question) == clauses


def test_clauses_of_the_analysis_are_numbered_in_order() -> None:
    analysis = analyse("What is 2+2, and what is 3+3?", date(2026, 11, 22))
    assert [(c.index, c.text) for c in analysis.clauses] == [
        (0, "What is 2+2"),
        (1, "what is 3+3?"),
    ]


@pytest.mark.parametrize(
    ("question", "clauses"),
    [
        # A quoted list goes on after ", and"; "Then," and "After that," are no requests.
        (
            "Plan a route through 'Rome', 'Pisa', and 'Siena'. Then, find the lyrics of "
            "'Yesterday'. After that, calculate the pace.",
            [
                "Plan a route through 'Rome', 'Pisa', and 'Siena'.",
                "find the lyrics of 'Yesterday'.",
                "calculate the pace.",
            ],
        ),
        # Requests listed after "Two things -" are requests, though no verb asks.
        (
            "Two things - the phone number from https://x.test/, and the latest commit in /r.",
            ["Two things - the phone number from https://x.test/", "the latest commit in /r."],
        ),
        # "Just out of curiosity," says why: no request of its own
        (
            "Just out of curiosity, how many entities in my graph are people?",
            ["how many entities in my graph are people?"],
        ),
        # "First," "Second," "Lastly," only number the requests: no words of theirs.
        (
            "First, find the lyrics of 'Yesterday'. Second, I need the prices of 'Apple' and "
            "'Tesla'. Lastly, calculate the pace.",
            [
                "find the lyrics of 'Yesterday'.",
                "I need the prices of 'Apple' and 'Tesla'.",
                "calculate the pace.",
            ],
        ),
        ("Search for a car in Oslo and reserve it.", ["Search for a car in Oslo", "reserve it."]),
        # A list's long items end with a short one after ", and"; a statement is no item.
        (
            "make a table for staff: an id as the primary key, a name that can't be null, and "
            "a city column.",
            [
                "make a table for staff: an id as the primary key, a name that can't be null, "
                "and a city column."
            ],
        ),
        (
            "memory: new person Tom (plumber), new person Lena (architect), and Tom knows Lena",
            ["memory: new person Tom (plumber), new person Lena (architect)", "Tom knows Lena"],
        ),
        # An action after "and" is a request of its own.
        (
            "fetch http://x.test/a and save it to /tmp/a.txt",
            ["fetch http://x.test/a", "save it to /tmp/a.txt"],
        ),
        # A stated fact is the context of the question after it.
        (
            "It's 20:00 in Dubai. What time is it in Tokyo?",
            ["It's 20:00 in Dubai: What time is it in Tokyo?"],
        ),
        # So is a clock time told, for a question of what time that is elsewhere.
        (
            "A supplier in Nairobi suggested a call at 16:00. What time would that be in Lima?",
            ["A supplier in Nairobi suggested a call at 16:00: What time would that be in Lima?"],
        ),
        (
            "The call is at 16:00 in Nairobi. What is the weather in Lima?",
            ["What is the weather in Lima?"],
        ),
        # A statement after a request that gives nothing only tells more.
        ("What is 2+2? It is late.", ["What is 2+2?"]),
        ("What is 2+2? It is 10:00 now.", ["What is 2+2?", "It is 10:00 now."]),
    ],
)
def test_lists_connectives_and_more_verbs(question: str, clauses: list[str]) -> None:
    assert split_clauses(question) == clauses


@pytest.mark.parametrize(
    ("question", "clauses"),
    [
        # A list of short items after ", and" goes on; a longer item starts a request.
        (
            "Tell me the date, time, and ticket availability.",
            ["Tell me the date, time, and ticket availability."],
        ),
        (
            "I need the health of the Amazon, the forestry legislation in Brazil, and the "
            "details about the human species.",
            [
                "I need the health of the Amazon, the forestry legislation in Brazil",
                "the details about the human species.",
            ],
        ),
        (
            "What is 15% of 2,340, and the weather in Paris?",
            ["What is 15% of 2,340", "the weather in Paris?"],
        ),
        # A relative clause describes; a condition belongs to the request after it.
        (
            "Calculate the cost from New York to Los Angeles, which is about 3000 km.",
            ["Calculate the cost from New York to Los Angeles, which is about 3000 km."],
        ),
        (
            "Create a message. Once the message is created, send a reminder to all employees.",
            [
                "Create a message.",
                "Once the message is created, send a reminder to all employees.",
            ],
        ),
        (  # "it" after a change that names a file is that file: one request
            'create /srv/a.txt and write "hi" into it',
            ['create /srv/a.txt and write "hi" into it'],
        ),
        (  # a place alone belongs to the request after it
            "in /srv/repo, stage app.py and commit it",
            ["in /srv/repo, stage app.py", "commit it"],
        ),
        # A fact and what to do with it are one request, as is what a change goes on to say;
        # a request and what to do with its result are two.
        (
            "order 7 was cancelled, delete it from the orders table",
            ["order 7 was cancelled, delete it from the orders table"],
        ),
        (
            'Add a company called "Globex" to memory; it is based in Springfield',
            ['Add a company called "Globex" to memory; it is based in Springfield'],
        ),
        ("fetch the page, save it to a.txt", ["fetch the page", "save it to a.txt"]),
        (
            "how much do they add up to? (orders.amount)",
            ["how much do they add up to? (orders.amount)"],
        ),
        ("What is Bob's email? It is in users", ["What is Bob's email?", "It is in users"]),
        # "in it" after a clause that names a folder is in that folder.
        (
            "make a drafts folder in /srv and put a file intro.md in it",
            ["make a drafts folder in /srv", "put a file intro.md in /srv/drafts"],
        ),
        (
            "read /srv/a.txt and find the word cat in it",
            ["read /srv/a.txt", "find the word cat in it"],
        ),
        # so is "in there"; a plus before a verb opens a request, not one between numbers
        (
            "mkdir /srv/new + move /srv/a.txt in there",
            ["mkdir /srv/new", "move /srv/a.txt in /srv/new"],
        ),
        ("what is 2 + 2 and x + y?", ["what is 2 + 2 and x + y?"]),
        # a thing alone after "then" or a plus is done what the request before does to its own
        (
            "delete her orders and then her entry in users",
            ["delete her orders", "delete her entry in users"],
        ),
        ("delete her orders + her user row", ["delete her orders", "delete her user row"]),
        ("read a.txt then the weather in Paris", ["read a.txt", "the weather in Paris"]),
        # what the user means to do is no request; its folder is the request's
        (
            "I want TODO.md in /r/repo to be in my next commit. Please stage just TODO.md.",
            ["in /r/repo, stage just TODO.md."],
        ),
        (
            "I want to tweak the CLI in /r/repo. In the committed config.py, what is the default?",
            ["in /r/repo, In the committed config.py, what is the default?"],
        ),
        (
            "I want to know what is in /a/b.txt. What time is it?",
            ["I want to know what is in /a/b.txt.", "What time is it?"],
        ),
        # what the user wants to do, with a time, then a question about that time
        (
            "I'm in Phoenix and want to call Taipei at 6 pm. What time is that in Taipei?",
            ["I'm in Phoenix and want to call Taipei at 6 pm: What time is that in Taipei?"],
        ),
        # "link" before a name opens a request; "and link her to ..." goes on with the one before
        (
            "memory: add Leeds as a city entity, link Carol -[lives in]-> Leeds",
            ["memory: add Leeds as a city entity", "link Carol -[lives in]-> Leeds"],
        ),
        (
            "is there a user whose email ends in .org, and if so who?",
            ["is there a user whose email ends in .org, and if so who?"],
        ),
        (
            "which company and which project is she connected to, and in what way?",
            ["which company and which project is she connected to, and in what way?"],
        ),
        # what happened to the user, first, is context for the sentence after it
        (
            "I mistyped a receipt. It came to 38.10, not 31.80. Could you correct it in a.csv?",
            ["I mistyped a receipt: It came to 38.10, not 31.80: Could you correct it in a.csv?"],
        ),
        # "it", or the name again, after a change that names a branch is that branch.
        (
            "make a new branch release-2 in /r, then switch to it",
            ["make a new branch release-2 in /r", "switch to branch release-2"],
        ),
        (
            "create the branch release-2 and check out release-2",
            ["create the branch release-2", "check out branch release-2"],
        ),
        # a branch made the current one, hopped onto; "&" between verbs
        (
            "create a branch x-1 in /r and make it the current branch",
            ["create a branch x-1 in /r", "make branch x-1 the current branch"],
        ),
        (
            "branch off as x/y in /r + hop onto it",
            ["branch off as x/y in /r", "hop onto branch x/y"],
        ),
        ("/r: T.md → stage & commit ('Add T')", ["/r: T.md → stage", "commit ('Add T')"]),
        ("write /f/a.txt and make it say hello", ["write /f/a.txt and make it say hello"]),
        # A message after a change that names a file is passed on, not added to the file
        (
            "in /r, check out x-1, then stage app.py and commit it with the message 'Add units'",
            [
                "in /r, check out x-1",
                "stage app.py",
                "commit it with the message 'Add units'",
            ],
        ),
        # ... and after a change that adds a thing by its name, that thing.
        (
            "add Project Osprey to my graph, and record that Carol leads it",
            ["add Project Osprey to my graph", "record that Carol leads Project Osprey"],
        ),
        # Two verbs of one question share its object; a sentence saying "too" goes on the one
        # before; a table alone says where the request after it acts.
        ("how do I read and write files?", ["how do I read and write files?"]),
        (
            "which logs are in /var/app? check subfolders as well",
            ["which logs are in /var/app; check subfolders as well"],
        ),
        (
            "in the rooms table, delete the row with id 3",
            ["in the rooms table, delete the row with id 3"],
        ),
        # A second request that shares the first one's verb, each saying where or what.
        (
            "git status for /srv/repo and the contents of /srv/a.txt",
            ["git status for /srv/repo", "the contents of /srv/a.txt"],
        ),
        (
            "list the tables in the database and the files in /srv",
            ["list the tables in the database", "list the files in /srv"],
        ),
        (
            "what's the weather in Oslo and the time in Lima?",
            ["what's the weather in Oslo", "what's the time in Lima?"],
        ),
        (
            "show me the menu and the prices at http://x.org/p",
            ["show me the menu and the prices at http://x.org/p"],
        ),
        (
            "Who is the head of Acme and the mayor of Lyon?",
            ["Who is the head of Acme and the mayor of Lyon?"],
        ),
        # Where to look, then what to look for: one request.
        (
            "Could you check your memory and tell me what we know about Project Falcon?",
            ["Could you check your memory and tell me what we know about Project Falcon?"],
        ),
        # An interjection is no request either.
        ("Oh, and please add 2 and 3.", ["add 2 and 3."]),
        # Connectives and thanks are no requests.
        (
            "Get the delivery time. In addition, update the shipment. Thank you!",
            ["Get the delivery time.", "update the shipment."],
        ),
        # The one person (or file) a stating sentence names is whom a change's "his" (or "it")
        # points at, and the sentence is no request of its own; after a request, "it" is what
        # the request gives.
        (
            "I got an email from Bob Chen. Could you change his city in users to Vancouver?",
            ["Could you change Bob Chen's city in users to Vancouver?"],
        ),
        (
            "I'm happy with app.py. Could you add it to the staging area in /srv/repo?",
            ["Could you add app.py to the staging area in /srv/repo?"],
        ),
        ("read /a/notes.txt and save it to /a/b.txt", ["read /a/notes.txt", "save it to /a/b.txt"]),
        # An e-mail address after an arrow is what a value becomes, no file to save to.
        ("Ana Lima's email → ana@new.example", ["Ana Lima's email → ana@new.example"]),
        # A fact, an arrow, then what to do with it: one request.
        ("feedback row 3 is spam → delete it", ["feedback row 3 is spam, delete it"]),
        # A file, an arrow, then what is done to it: one request; what is read goes on.
        ("TODO.md only → commit in /r, msg 'x'", ["commit TODO.md only in /r, msg 'x'"]),
        ("/a/notes.txt -> add it to memory", ["/a/notes.txt", "add it to memory"]),
        ("report.md → remove the typo", ["report.md", "remove the typo"]),  # its own object
        # A sentence saying what something isn't states it: no request of its own.
        (
            "Entry number 3 isn't a real review. Please delete row 3 from the feedback table.",
            ["delete row 3 from the feedback table."],
        ),
        # "their" are those the sentence before tells of.
        (
            "I'm inviting our customers in Lyon. Please look up their emails in the users table.",
            ["I'm inviting our customers in Lyon, look up their emails in the users table."],
        ),
        # "him" is the one person the user tells of meeting.
        (
            "I met Dave at a gig. Please add him to memory as a person.",
            ["I met Dave at a gig: Please add Dave to memory as a person."],
        ),
        # "+=" adds a line at the end, as a programmer writes it; "x += 1" is no file's.
        (
            "/a/notes.txt += 'water the plants'",
            ["add 'water the plants' as a new line at the end of /a/notes.txt"],
        ),
        ("/a/b.csv += row testing,350", ["append the line testing,350 at the end of /a/b.csv"]),
        ("x += 1", ["x += 1"]),
        ("db → list its tables", ["in the db, list its tables"]),  # where, then the request
        # a wish goes on; a request of "you" opens one
        (
            "I'm planning a party and would like a cake. How much is one on http://x.org/p?",
            ["I'm planning a party and would like a cake: How much is one on http://x.org/p?"],
        ),
        ("read /f/a.txt and would you list /f", ["read /f/a.txt", "would you list /f"]),
        ("/a/n.txt: add a line → call Bo", ["append the line call Bo at the end of /a/n.txt"]),
        # "that table" is the one table the sentence before names; two named, it stays.
        (
            "I'm about to query the feedback table. What columns does that table have?",
            ["What columns does the feedback table have?"],
        ),
        (
            "I'm comparing the users table and the orders table. How many rows has that table?",
            ["How many rows has that table?"],
        ),
        (
            "The TODO.md file in /srv/repo isn't tracked yet. Could you add it?",
            ["in /srv/repo, Could you add TODO.md?"],
        ),
        # A fact, then a change that gives no value: the fact says what to change.
        (
            "Bob Chen moved to Vancouver, update the users table",
            ["Bob Chen moved to Vancouver, update the users table"],
        ),
        # What bounds the request before it, or says why it is checked, asks for nothing.
        (
            "Remove the relation Bob works at Initech. Keep everything else about him.",
            ["Remove the relation Bob works at Initech."],
        ),
        (
            "Add 1234.5 and 987.25? I want to double-check my invoice total.",
            ["Add 1234.5 and 987.25?"],
        ),
        (
            "Convert 11:00 Kolkata time to Shanghai time, please.",
            ["Convert 11:00 Kolkata time to Shanghai time"],
        ),
        ("Please go ahead and commit app.py in /r", ["commit app.py in /r"]),
        # A sentence that only tells why goes with the request after it.
        (
            "The deadline has moved again. Can you update /a/alpha.txt?",
            ["The deadline has moved again: Can you update /a/alpha.txt?"],
        ),
        ("Read /a/b.txt. Then read /a/c.txt.", ["Read /a/b.txt.", "read /a/c.txt."]),
        ("Put a row in for her, would you?", ["Put a row in for her"]),
        ("Hi, could you read /a/b.txt?", ["could you read /a/b.txt?"]),
        (
            "On average, how much does an order in the orders table come to?",
            ["On average, how much does an order in the orders table come to?"],
        ),
        ("Please read /a/b.txt. Thanks a lot.", ["read /a/b.txt."]),
        # A copy is a reading and a writing of what was read.
        (
            "Could you put a task on /a/todo.md for me, please?",
            ["Could you put a task on /a/todo.md for me"],
        ),
        (
            "List each city in the users table? No duplicates, please.",
            ["List each city in the users table; No duplicates"],
        ),
        (
            "copy the error entry from /a/s.log into a new file /a/e.txt",
            ["read the error entry from /a/s.log", "save it to a new file /a/e.txt"],
        ),
        ("copy /a/n.txt to /a/b.txt", ["read /a/n.txt", "save it to /a/b.txt"]),
        # So is a duplicate or a backup; one named without a folder is made beside the file.
        (
            "could you make a backup copy of /a/b.csv called c.csv in the same folder?",
            ["read /a/b.csv", "save it to /a/c.csv"],
        ),
        ("please duplicate /a/b.csv to /d/b.csv", ["read /a/b.csv", "save it to /d/b.csv"]),
        # A sentence that gives the text of the change before it belongs to it.
        (
            "Could you create a list at /a/s.txt? I just need three lines in it: eggs, flour "
            "and butter.",
            [
                "Could you create a list at /a/s.txt; I just need three lines in it: eggs, flour "
                "and butter."
            ],
        ),
        ("copy the users table to a csv", ["copy the users table to a csv"]),
        # So is writing what a tool tells into a file.
        (
            "write down what memory knows about Falcon in /a/f.txt",
            ["what memory knows about Falcon", "save it to /a/f.txt"],
        ),
        (
            "save the commit messages of /r to /a/c.txt",
            ["the commit messages of /r", "save it to /a/c.txt"],
        ),
        ('save "hi" to /a/b.txt', ['save "hi" to /a/b.txt']),
        # the file named after its kind, why after it; a verb after an arrow
        (
            "save the uncommitted changes in /r as a patch file, /a/u.patch, so that I can send it",
            ["the uncommitted changes in /r", "save it to a patch file, /a/u.patch"],
        ),
        (
            "carol's entry in memory → dump to /a/c.txt",
            ["carol's entry in memory", "save it to /a/c.txt"],
        ),
        # A stating sentence before a request is context: left out when the request gives a
        # value of each kind it gives, else part of the request; what the request keeps stays.
        (
            "I made some edits in /srv/repo yesterday and forgot what they were. Could you show "
            "me the changes that aren't staged yet?",
            ["in /srv/repo, Could you show me the changes that aren't staged yet?"],
        ),
        (
            "I'm about to write a report on reviews. Before I start, could you tell me what "
            "columns the feedback table has?",
            ["Before I start, could you tell me what columns the feedback table has?"],
        ),
        (
            "The units change in app.py is ready. Could you stage app.py in /r?",
            ["Could you stage app.py in /r?"],
        ),
        (
            "Carla Reyes wrote to say she has moved from Madrid. Could you update her record in "
            "the users table so her city is Seville?",
            [
                "Could you update Carla Reyes's record in the users table so Carla Reyes's city "
                "is Seville?"
            ],
        ),
        (
            "Emma Schultz moved to Hamburg. Update her city in the users table.",
            ["Emma Schultz moved to Hamburg, update her city in the users table."],
        ),
        (
            "Carol works at Initech now. Add that to the graph.",
            ["Carol works at Initech now, add that to the graph."],
        ),
        (
            "I need the weather in Paris. Could you also tell me the time in Rome?",
            ["I need the weather in Paris.", "Could you also tell me the time in Rome?"],
        ),
        # ... and what only bounds or says again the request before it asks for nothing.
        (
            "Could you stage app.py in /r? TODO.md should stay out of the commit.",
            ["Could you stage app.py in /r?"],
        ),
        (
            "Delete order 4 in the orders table. All other orders should stay.",
            ["Delete order 4 in the orders table."],
        ),
        (
            "Could you record in memory that Carol reports to Alice? Please use 'reports to' "
            "as the relation.",
            ["Could you record in memory that Carol reports to Alice?"],
        ),
        ("Remove 'likes tea' from Bob. Keep his allergy note.", ["Remove 'likes tea' from Bob."]),
        # A change that gives only a text goes to the one thing the change before names.
        (
            "Bob: remove 'likes tea', add 'likes coffee'",
            ["Bob: remove 'likes tea'", "add 'likes coffee' to Bob"],
        ),
        # Why the change is asked is no part of it; an arrow to a file saves what it reads.
        (
            "create a branch called u-1 in /r and check it out so I'm working on it?",
            ["create a branch called u-1 in /r", "check branch u-1 out?"],
        ),
        (
            "emails of users in Lyon -> /a/lyon.txt, one per line",
            ["emails of users in Lyon", "save it to /a/lyon.txt, one per line"],
        ),
        # A sentence that asks for more after "Also," is a request of its own.
        (
            "How many cases are there in South Africa? Also, please get news about South Africa.",
            ["How many cases are there in South Africa?", "get news about South Africa."],
        ),
        # A verb that goes on a statement after "and" opens no request; a question's does.
        (
            "A form came in and was saved as /a/f.txt. Could you read it?",
            ["Could you read /a/f.txt?"],
        ),
        ("what time is it and is it raining?", ["what time is it", "is it raining?"]),
        (
            "I made edits in /r and can't remember what they were. Could you show the diff?",
            ["in /r, Could you show the diff?"],
        ),
        # The values of the change before, said after it, are part of it.
        (
            "Could you add her to the users table? Her name is Farah Haddad.",
            ["Could you add her to the users table?; Her name is Farah Haddad."],
        ),
        # The person in a file added to a table: the file read, then the row added.
        (
            "add the person in /a/form.txt to the users table",
            ["read /a/form.txt", "add the person to the users table"],
        ),
        # What of a question's answer to show is part of the question.
        (
            "Which orders are between 20 and 50? List the items and their amounts.",
            ["Which orders are between 20 and 50? List the items and their amounts."],
        ),
        (
            "Which orders are between 20 and 50? List the item and the amount of each.",
            ["Which orders are between 20 and 50? List the item and the amount of each."],
        ),
        # A sentence that only states something is context, however it goes on.
        (
            "Entry 3 is spam, not a real review, and it's skewing our ratings. Delete row 3 of"
            " the feedback table.",
            ["Delete row 3 of the feedback table."],
        ),
        # A sentence that opens by telling when, then asks: its requests.
        (
            "Before I call Priya, tell me the time in Kolkata and remind me of the deadline in"
            " /a/alpha.txt.",
            [
                "Before I call Priya, tell me the time in Kolkata",
                "remind me of the deadline in /a/alpha.txt.",
            ],
        ),
        # Where the answers are, said first, is said for each question.
        (
            "According to http://x/a.html, how many people work there, and when did Marco join?",
            [
                "According to http://x/a.html, how many people work there",
                "According to http://x/a.html, when did Marco join?",
            ],
        ),
        # A wish the request after it asks again said why.
        (
            "I want to see whether we know anyone in Phoenix. Search memory for 'Phoenix'.",
            ["Search memory for 'Phoenix'."],
        ),
        # A wish denied is no request: the sentence only tells why.
        (
            "My brother is in Nepal and I don't want to wake him. What time is it in Kathmandu?",
            ["What time is it in Kathmandu?"],
        ),
        # "her" as the one person named before: the owner of what follows, or the one added.
        (
            "look up Emma Schultz's email in the db and save her in memory with it",
            ["look up Emma Schultz's email in the db", "save Emma Schultz in memory with it"],
        ),
        # A change that keeps facts of a table, a page or a file: read them, then keep them.
        (
            "add Dmitri Volkov to my memory graph as a person, with his email from the users table",
            [
                "get Dmitri Volkov's email from the users table",
                "add Dmitri Volkov to my memory graph as a person with his email",
            ],
        ),
        (
            "put Project Alpha in memory as a project, with owner + deadline from /a/alpha.txt",
            ["read /a/alpha.txt", "put Project Alpha in memory as a project with owner + deadline"],
        ),
        (
            "write /a/b.txt with the text from /a/c.txt",
            ["write /a/b.txt with the text from /a/c.txt"],
        ),
        # A new folder with a file in it: the folder, then the file.
        (
            "new folder /a/inv with a README.txt in it: 'Scanned'",
            ["new folder /a/inv", "create a README.txt in /a/inv: 'Scanned'"],
        ),
        # Where to look, a folder, then what to look for: one request.
        (
            "Could you search /a, including the subfolders, and tell me which csv files are "
            "in there?",
            [
                "Could you search /a, including the subfolders, and tell me which csv files are "
                "in there?"
            ],
        ),
        # What a new thing is, said after it: one request.
        (
            'add a project called "Heron" to memory; it starts in April',
            ['add a project called "Heron" to memory; it starts in April'],
        ),
        # What the request must leave alone, and why it is asked, are no requests.
        ("Please stage a.py in /r, but don't commit anything yet.", ["stage a.py in /r."]),
        (
            'Commit it with the message "Add T", but leave my app.py changes uncommitted.',
            ['Commit it with the message "Add T".'],
        ),
        ("move x.txt to /a and keep y.txt as it is", ["move x.txt to /a"]),
        # A sentence that only asks for what the one before said is no request of its own.
        (
            "I'd like to know which files git isn't tracking in /r. Could you check for me?",
            ["I'd like to know which files git isn't tracking in /r."],
        ),
        ("Is T.md staged in /r? Can you do that, please?", ["Is T.md staged in /r?"]),
        ("Could you check for me?", ["Could you check for me?"]),
        ("Stage T.md in /r so that it goes into my next commit.", ["Stage T.md in /r."]),
        (
            'Please commit the NOTES.md file in /r/repo on its own, with the message "Add notes". '
            "My edits to main.py aren't ready yet, so leave those uncommitted.",
            ['commit the NOTES.md file in /r/repo on its own, with the message "Add notes".'],
        ),
        (
            "Delete the 'knows' relation from Bob to Alice, without touching either person?",
            ["Delete the 'knows' relation from Bob to Alice?"],
        ),
        (
            "I'll try an idea without touching main. Please branch x-1 off main, dont switch",
            ["I'll try an idea: Please branch x-1 off main"],
        ),
        (
            'Please add T.md in /r and commit it with the message "Add T" — just that file.',
            ["add T.md in /r", 'commit it with the message "Add T".'],
        ),
        ("Just to be sure, could you add 17 and 4?", ["could you add 17 and 4?"]),
        (
            "For my trip budget, could you add 1890 and 2345.75?",
            ["could you add 1890 and 2345.75?"],
        ),
        (
            "In /a/b.csv, change the cost from 240 to 300 and leave the other lines as they are.",
            ["In /a/b.csv, change the cost from 240 to 300."],
        ),
        # A statement that ends the question, giving nothing, only tells more.
        (
            "Could you make a folder /a/r/2024? The r folder doesn't exist yet either.",
            ["Could you make a folder /a/r/2024?"],
        ),
        (
            "Please create a folder /a/t and, inside it, a file l.txt containing the line 'x'.",
            ["create a folder /a/t", "create a file l.txt in /a/t containing the line 'x'."],
        ),
        (
            "new folder /a/t + file l.txt in it: 'x'",
            ["new folder /a/t", "create file l.txt in /a/t: 'x'"],
        ),
        # An acronym before a noun is no place the request lacks: the sentence only tells why.
        (
            "The news page has a section addressed to AI assistants. Please fetch "
            "http://x.org/n.html and summarize it.",
            ["fetch http://x.org/n.html", "summarize it."],
        ),
        # What a value should be, told first, is the change asked for after it.
        (
            "Bob got a refund, so order 8 should show 5.9 instead of 6.4. Update the amount.",
            ["Bob got a refund, so order 8 should show 5.9 instead of 6.4, update the amount."],
        ),
        # Two stating pieces of one sentence tell why together.
        (
            "The order was entered by mistake; nobody bought it. Please delete order 4.",
            ["The order was entered by mistake; nobody bought it: Please delete order 4."],
        ),
        # Where, said first; "her" is the one name the sentence before opens with.
        (
            "Alice has swapped hiking for climbing. In memory, please remove her observation "
            "'likes hiking' and add 'climbs' instead.",
            [
                "In memory, please remove Alice's observation 'likes hiking'",
                "add 'climbs' to Alice instead.",
            ],
        ),
        # What is read, an arrow, then what to do with it.
        (
            "bob chen's email from the db → add to Bob in memory",
            ["bob chen's email from the db", "add it to Bob in memory"],
        ),
        ("gift list → /a/g.txt: scarf, socks", ["write to /a/g.txt: scarf, socks"]),
        # A new thing, then what to do with it, are two requests.
        ("/r: new branch c-r, check it out", ["/r: new branch c-r", "check branch c-r out"]),
    ],
)
def test_lists_relative_clauses_conditions_and_thanks(question: str, clauses: list[str]) -> None:
    assert split_clauses(question) == clauses


def test_there_may_point_at_a_place_named_earlier_in_the_conversation() -> None:
    earlier = "What is 15% of 2,340, and what time is it in Tokyo?"
    assert split_clauses("And the weather there?", earlier) == ["the weather in Tokyo?"]
    # A place the question names itself is nearer.
    assert split_clauses("Hotels in Oslo and the weather there", earlier) == [
        "Hotels in Oslo and the weather in Oslo"
    ]
    assert split_clauses("Find hotels in Oslo. Weather there?", earlier) == [
        "Find hotels in Oslo.",
        "Weather in Oslo?",
    ]
