// The review desk's one script (CONTRACT §14). The pages work without it; it adds the
// keyboard: it only moves focus, selects rows, and clicks or submits the forms and links
// the server rendered. It never builds markup from data and never evaluates text.
//
// Queue:  j / k  move the selection    o or Enter  open the selected order
//         n  claim the next open order /  search box
// Order:  f  fraud   l  legit (select the radio and submit the verdict form)
//         v  the verdict's reason   c  the comment box   n  next open order   u  the queue
// Anywhere: Esc leaves a text box; Ctrl+Enter (or Cmd+Enter) in a text box sends its form.
(function () {
  "use strict";

  function byId(id) {
    return document.getElementById(id);
  }

  // Shortcuts never fire while someone types.
  function isTyping(target) {
    if (!target || !target.tagName) return false;
    var tag = target.tagName.toLowerCase();
    return tag === "input" || tag === "textarea" || tag === "select" || target.isContentEditable;
  }

  function submit(form) {
    if (!form) return false;
    if (typeof form.requestSubmit === "function") form.requestSubmit();
    else form.submit();
    return true;
  }

  function focusField(id) {
    var field = byId(id);
    if (!field) return false;
    field.focus();
    if (typeof field.select === "function" && field.type !== "textarea") field.select();
    return true;
  }

  // The queue's rows: a selection that j/k move, kept visible and focused on its link.
  function queueRows() {
    var table = byId("queue");
    if (!table) return [];
    return Array.prototype.slice.call(table.querySelectorAll("tbody tr[data-order-id]"));
  }

  var selected = -1;

  function select(index) {
    var rows = queueRows();
    if (rows.length === 0) return false;
    if (index < 0) index = 0;
    if (index >= rows.length) index = rows.length - 1;
    if (selected >= 0 && rows[selected]) {
      rows[selected].classList.remove("selected");
      rows[selected].removeAttribute("aria-selected");
    }
    selected = index;
    var row = rows[index];
    row.classList.add("selected");
    row.setAttribute("aria-selected", "true");
    var link = row.querySelector("a.order-link");
    if (link) link.focus({ preventScroll: true });
    row.scrollIntoView({ block: "nearest" });
    return true;
  }

  function openSelected() {
    var rows = queueRows();
    if (selected < 0 || !rows[selected]) return false;
    var link = rows[selected].querySelector("a.order-link");
    if (!link) return false;
    link.click();
    return true;
  }

  // A verdict by key: the radio chosen, then the form sent (the browser checks it first).
  function verdict(value) {
    var radio = byId("verdict-" + value);
    if (!radio) return false;
    radio.checked = true;
    return submit(byId("verdict-form"));
  }

  function onQueueKey(key) {
    switch (key) {
      case "j":
        return select(selected + 1);
      case "k":
        return select(selected < 0 ? 0 : selected - 1);
      case "o":
      case "Enter":
        return openSelected();
      case "/":
        return focusField("q");
      default:
        return false;
    }
  }

  function onOrderKey(key) {
    switch (key) {
      case "f":
        return verdict("fraud");
      case "l":
        return verdict("legit");
      case "v":
        return focusField("verdict-note");
      case "c":
        return focusField("note-text");
      case "u":
        var back = byId("queue-link");
        if (!back) return false;
        back.click();
        return true;
      default:
        return false;
    }
  }

  function onKey(event) {
    if (event.defaultPrevented || event.isComposing) return;
    var target = event.target;
    if (isTyping(target)) {
      if (event.key === "Escape") target.blur();
      else if (event.key === "Enter" && (event.ctrlKey || event.metaKey) && target.form) {
        event.preventDefault();
        submit(target.form);
      }
      return;
    }
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    // Enter on a focused link or button is the browser's own: leave it be.
    if (event.key === "Enter" && target && target.closest && target.closest("a, button")) return;
    var handled = false;
    if (event.key === "n") handled = submit(byId("next-form"));
    else if (byId("queue")) handled = onQueueKey(event.key);
    else if (byId("verdict") || byId("summary")) handled = onOrderKey(event.key);
    if (handled) event.preventDefault();
  }

  // A filter select sends the filter form when it changes: one less step per filter.
  function autoSubmitFilters() {
    var form = byId("filters");
    if (!form) return;
    var selects = form.querySelectorAll("select");
    for (var i = 0; i < selects.length; i++) {
      selects[i].addEventListener("change", function () {
        submit(form);
      });
    }
  }

  // A click on a row's cell (not its links or buttons) selects it, as j/k would.
  function clickToSelect() {
    var table = byId("queue");
    if (!table) return;
    table.addEventListener("click", function (event) {
      var row = event.target.closest ? event.target.closest("tr[data-order-id]") : null;
      if (!row || event.target.closest("a, button")) return;
      select(queueRows().indexOf(row));
    });
  }

  document.addEventListener("DOMContentLoaded", function () {
    document.addEventListener("keydown", onKey);
    autoSubmitFilters();
    clickToSelect();
  });
})();
